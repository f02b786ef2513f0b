/**
 * Issue 10 item 7: a signal to `bub run` (and SIGHUP to `bub chat`) ends the running scope —
 * which terminates tool process groups — and exits with 128 + the signal number.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import process from "node:process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { FakeTelegramServer } from "../../src/testing/fake_telegram.ts";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";
import {
  BIN,
  childEnv,
  cleanupStack,
  ROOT,
  runtimeCommand,
  startChild,
  tempDirs,
} from "./_spawn.ts";

/** PIDs of processes whose command line contains `marker`. */
function pidsMatching(marker: string): number[] {
  try {
    return execFileSync("pgrep", ["-f", marker], { encoding: "utf8" })
      .split("\n").filter((line) => line.trim() !== "").map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

async function waitUntil(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await delay(50);
  }
}

/**
 * Sends `signal` with `process.kill` (Deno's `ChildProcess.kill()` reports the child as killed by
 * the signal it sent, whatever exit code the child then chose).
 */
function signalChild(pid: number, signal: NodeJS.Signals): void {
  process.kill(pid, signal);
}

/** A `sleep` duration nobody else uses, so `pgrep -f` finds only this test's grandchildren. */
function uniqueSleep(): string {
  return `sleep 300.${process.pid}${Math.floor(Math.random() * 1e6)}`;
}

describe("signals end bub's running scope (issue 10 item 7)", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  for (const [signal, code] of [["SIGTERM", 143], ["SIGINT", 130], ["SIGHUP", 129]] as const) {
    test(`${signal} to bub run while its bash tool runs 'sleep & sleep' exits ${code} and no sleep survives`, async () => {
      const dirs = tempDirs();
      const sleep = uniqueSleep();
      const server = await MockLlmServer.start({
        script: [
          mockReply.toolCall("bash", { command: `${sleep} & ${sleep}` }),
          mockReply.text("done"),
        ],
      });
      cleanup.defer(async () => {
        for (const pid of pidsMatching(sleep)) {
          try {
            process.kill(pid, "SIGKILL");
          } catch { /* gone */ }
        }
        await server.close();
        dirs.remove();
      });
      const child = startChild(runtimeCommand(BIN, ["run", "go"]), {
        cwd: dirs.workspace,
        env: childEnv(dirs, { BUB_MODEL: "custom:x", BUB_API_BASE: server.url, BUB_API_KEY: "k" }),
      });
      cleanup.defer(() => child[Symbol.asyncDispose]());
      await waitUntil(() => pidsMatching(sleep).length >= 2, "both sleeps to start");
      signalChild(child.process.pid!, signal);
      const exitCode = await child.exited(20_000);
      assert.equal(exitCode, code, child.stderr);
      await waitUntil(() => pidsMatching(sleep).length === 0, "the sleeps to be gone", 5_000)
        .catch(() =>
          assert.fail(`sleep grandchildren survived: ${pidsMatching(sleep).join(", ")}`)
        );
      assert.equal(server.requests.length, 1, "the turn went on after the signal");
    });
  }

  test("SIGHUP to bub chat ends it with 129", async () => {
    const dirs = tempDirs();
    const server = await MockLlmServer.start({ script: [mockReply.text("hi")] });
    cleanup.defer(async () => {
      await server.close();
      dirs.remove();
    });
    const child = startChild(runtimeCommand(BIN, ["chat"]), {
      cwd: dirs.workspace,
      env: childEnv(dirs, { BUB_MODEL: "custom:x", BUB_API_BASE: server.url, BUB_API_KEY: "k" }),
    });
    cleanup.defer(() => child[Symbol.asyncDispose]());
    await child.waitFor(/>|Bub/, { timeoutMs: 20_000 });
    signalChild(child.process.pid!, "SIGHUP");
    assert.equal(await child.exited(20_000), 129, child.stderr);
  });

  test("SIGHUP to bub gateway stops its channels and exits 129", async () => {
    const dirs = tempDirs();
    const telegram = await FakeTelegramServer.start();
    cleanup.defer(async () => {
      await telegram.close();
      dirs.remove();
    });
    const child = startChild(runtimeCommand(BIN, ["gateway", "--enable-channel", "telegram"]), {
      cwd: dirs.workspace,
      env: childEnv(dirs, {
        BUB_MODEL: "custom:x",
        BUB_API_BASE: "http://127.0.0.1:9/v1",
        BUB_API_KEY: "k",
        BUB_TELEGRAM_TOKEN: telegram.token,
        BUB_TELEGRAM_API_ROOT: telegram.apiRoot,
        BUB_TELEGRAM_ALLOW_USERS: "1001",
      }),
    });
    cleanup.defer(() => child[Symbol.asyncDispose]());
    await child.waitFor("serving telegram", { timeoutMs: 20_000 });
    await telegram.waitForCalls("getUpdates");
    signalChild(child.process.pid!, "SIGHUP");
    assert.equal(await child.exited(20_000), 129, child.stderr);
  });

  test("a second signal exits at once with the first one's code, even while the scope is still closing", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const script = join(dirs.workspace, "trap.ts");
    const signals = pathToFileURL(join(ROOT, "src", "cli", "signals.ts")).href;
    // A command whose cleanup never ends: only the second signal can stop it.
    writeFileSync(
      script,
      `import { trapSignals } from ${JSON.stringify(signals)};\n` +
        `const trap = trapSignals(["SIGINT", "SIGTERM", "SIGHUP"]);\n` +
        `trap.signal.addEventListener("abort", () => console.log("closing"));\n` +
        `setInterval(() => {}, 1000);\n` +
        `console.log("ready");\n`,
    );
    const child = startChild(runtimeCommand(script), { cwd: dirs.workspace, env: childEnv(dirs) });
    cleanup.defer(() => child[Symbol.asyncDispose]());
    await child.waitFor("ready");
    signalChild(child.process.pid!, "SIGHUP");
    await child.waitFor("closing");
    await delay(300);
    assert.equal(child.process.exitCode, null, "the first signal must not exit at once");
    signalChild(child.process.pid!, "SIGTERM");
    assert.equal(await child.exited(5_000), 129);
  });
});
