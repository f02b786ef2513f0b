/**
 * Soak row "gateway": N sessions × 3 messages through a gateway process (`_soak_gateway_child.ts`)
 * serving the Telegram channel against a fake Bot API (`FakeTelegramServer`, here) and the mock
 * model (its own process). Each message carries a unique tag that the model echoes; a reply is
 * lost when its tag never comes back in a `sendMessage`, duplicated when it comes back twice.
 * Reports p95 latency (update queued → `sendMessage` received), the gateway's peak RSS and its
 * open file descriptors before and after the load.
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FakeTelegramServer } from "../src/testing/fake_telegram.ts";
import { ReplyWatch } from "./_reply_watch.ts";
import {
  fdCount,
  fdKinds,
  fdKindsText,
  memoryOf,
  mib,
  percentile,
  type RowOptions,
  type RowResult,
  sleep,
  startChild,
  startModel,
} from "./_soak_common.ts";

const CHILD = fileURLToPath(new URL("./_soak_gateway_child.ts", import.meta.url));
const MESSAGES = 3;
const REPLY_TIMEOUT_MS = 60_000;
// The file store holds up to 16 tape files open (src/tape/file/_open_files.ts, HELD_FILES) by design;
// growth beyond that plus a few is a leak.
const FD_SLACK = 16 + 4;
const FIRST_USER = 50_000;

/** The gateway row. */
export async function gatewayRow(options: RowOptions): Promise<RowResult> {
  const sessions = options.quick ? 30 : 1000;
  const concurrency = options.quick ? 10 : 100;
  const home = mkdtempSync(join(tmpdir(), "bub-soak-gateway-"));
  const model = await startModel(false);
  const telegram = await FakeTelegramServer.start();
  const users = Array.from({ length: sessions + 1 }, (_, i) => FIRST_USER + i);
  let serving!: () => void;
  const isServing = new Promise<void>((resolve) => (serving = resolve));
  const gateway = startChild(
    CHILD,
    [home, model.url, telegram.apiRoot, telegram.token, users.join(",")],
    (line) => line.includes("serving telegram") && serving(),
  );
  const watch = new ReplyWatch(telegram);
  const pid = gateway.child.pid!;
  try {
    const up = await Promise.race([isServing.then(() => null), gateway.exited]);
    if (up !== null) throw new Error(`gateway exited (${up}): ${gateway.stderr()}`);
    // The channel drops updates queued before it starts polling.
    await telegram.waitForCalls("getUpdates", 1, { timeoutMs: 30_000 });
    // Warm-up turn (lazy imports, first model call), then the baseline.
    const warm = telegram.makeUser(users.at(-1)!);
    telegram.pushText("warm up TAG-warm", { from: warm });
    if (!await watch.wait("TAG-warm", REPLY_TIMEOUT_MS)) {
      throw new Error(`no reply to the warm-up message: ${gateway.stderr()}`);
    }
    await sleep(200);
    const fdsBefore = fdCount(pid);
    const kindsBefore = fdKinds(pid);
    const latencies: number[] = [];
    let lost = 0;
    let next = 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: concurrency }, async () => {
      for (let s = next++; s < sessions; s = next++) {
        const user = telegram.makeUser(users[s]!);
        for (let m = 0; m < MESSAGES; m++) {
          const tag = `TAG-s${s}-m${m}`;
          const start = performance.now();
          telegram.pushText(`hello ${tag}`, { from: user });
          if (await watch.wait(tag, REPLY_TIMEOUT_MS)) latencies.push(performance.now() - start);
          else lost++;
        }
      }
    }));
    const seconds = (performance.now() - started) / 1000;
    await sleep(1000);
    watch.scan();
    const fdsAfter = fdCount(pid);
    const kindsAfter = fdKinds(pid);
    const peak = memoryOf(pid).peak;
    let duplicated = 0;
    for (const [tag, count] of watch.seen) if (tag !== "TAG-warm") duplicated += count - 1;
    const total = sessions * MESSAGES;
    // Sockets are pooled keep-alive connections (to the model and the Bot API): bounded by the
    // concurrency, not the session count. Everything else must come back to where it was.
    const sockets = (kinds: Map<string, number>) => kinds.get("socket") ?? 0;
    const socketBound = sockets(kindsBefore) + 2 * concurrency;
    const otherGrowth = (fdsAfter - sockets(kindsAfter)) - (fdsBefore - sockets(kindsBefore));
    const pass = lost === 0 && duplicated === 0 && otherGrowth <= FD_SLACK &&
      sockets(kindsAfter) <= socketBound;
    return {
      row:
        `gateway: ${sessions} sessions × ${MESSAGES} messages (Telegram, ${concurrency} at once)`,
      measured:
        `lost ${lost}, duplicated ${duplicated} of ${total}; p95 ${
          percentile(latencies, 0.95).toFixed(0)
        } ms, p50 ${percentile(latencies, 0.5).toFixed(0)} ms, ${
          (total / seconds).toFixed(0)
        } msg/s; ` +
        `peak RSS ${mib(peak)}; fds ${fdsBefore} (${fdKindsText(kindsBefore)}) → ${fdsAfter} (${
          fdKindsText(kindsAfter)
        })` +
        (watch.untagged ? `; ${watch.untagged} other sendMessage` : ""),
      bound: `lost 0, duplicated 0; fds other than sockets ≤ before + ${FD_SLACK}, ` +
        `sockets ≤ before + 2 × ${concurrency} (connection pools)`,
      pass,
    };
  } finally {
    watch.stop();
    gateway.child.stdin!.end();
    const timer = setTimeout(() => gateway.child.kill("SIGKILL"), 10_000);
    await gateway.exited;
    clearTimeout(timer);
    await telegram.close();
    await model.stop();
    rmSync(home, { recursive: true, force: true });
  }
}
