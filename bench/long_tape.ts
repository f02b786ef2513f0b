/**
 * The first turn after a restart on a long session tape (issue 10 item 9): a session tape of
 * 1800 entries (`BENCH_ENTRIES`) — messages, tool calls and results, loop and run events — with
 * only its bootstrap anchor, or also a handoff anchor 30 entries before the end, in the file
 * store and in the SQLite store. Each round
 * copies the prepared tape into a fresh home and opens a fresh store (a restarted process), then
 * times: the old full read of the tape's events and the store's `latestEvents` (what `loadState`
 * reads), the builtin `loadState` (after a warm-up turn stage on another session, so module
 * loading and agent creation are not counted), the context read (`readMessages`), and a whole
 * first turn (`processInbound` against an in-process `MockLlmServer`). Prints the median and the max of
 * `BENCH_ROUNDS` rounds (default 15) per store. Loopback only; not run in CI.
 *
 * Run: `scripts/tool deno run -A bench/long_tape.ts` (or with node / bun).
 *
 * @module
 */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { setTimeout as delay } from "node:timers/promises";
import { BubFramework } from "../src/builtin/framework.ts";
import type { BuiltinPlugin } from "../src/builtin/plugin.ts";
import { anchorEntry, createEntry, messageEntry, type TapeEntry } from "../src/tape/entry.ts";
import { FileTapeStore } from "../src/tape/file_store.ts";
import { SqliteTapeStore } from "../src/tape/sqlite_store.ts";
import type { TapeStore } from "../src/tape/store.ts";
import { Tape } from "../src/tape/tape.ts";
import { TapeQuery } from "../src/tape/query.ts";
import { latestEvents } from "../src/tape/latest_events.ts";
import { MockLlmServer } from "../src/testing/mock_llm_server.ts";

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 1800);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const SESSION = "cli:local";
const WHAT = ["fullEventRead", "latestEvents", "loadState", "readMessages", "firstTurn"] as const;
// Session tape names depend on the workspace: every copy of the home shares this one.
const WORKSPACE = mkdtempSync(join(tmpdir(), "bub-long-tape-workspace-"));

type Kind = "file" | "sqlite";
type Store = TapeStore & { close(): Promise<void> };

function openStore(kind: Kind, home: string): Store {
  return kind === "file"
    ? new FileTapeStore(join(home, "tapes"))
    : new SqliteTapeStore(join(home, "tapes.db"));
}

/** A realistic mix: a user message, a tool call, its result, an assistant message, events. */
function history(count: number): TapeEntry[] {
  const out: TapeEntry[] = [];
  const filler = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(4);
  for (let i = 0; out.length < count; i++) {
    const run = { run_id: `run-${i}` };
    out.push(messageEntry({ role: "user", content: `question ${i}: ${filler}` }, run));
    out.push(createEntry("tool_call", {
      calls: [{
        id: `call_${i}`,
        type: "function",
        function: { name: "bash", arguments: JSON.stringify({ cmd: `echo ${i}` }) },
      }],
    }, run));
    out.push(createEntry("tool_result", { results: [`${i}\n${filler}`] }, run));
    out.push(messageEntry({ role: "assistant", content: `answer ${i}: ${filler}` }, run));
    out.push(createEntry("event", { name: "loop.step", data: { step: 1, status: "ok" } }, run));
    out.push(createEntry("event", { name: "run", data: { status: "ok", usage: null } }, run));
    if (i === 3) {
      out.push(createEntry("event", { name: "model_switch", data: { model: "openai:gpt-x" } }));
    }
  }
  return out.slice(0, count);
}

async function prepare(kind: Kind, home: string, lateAnchor: boolean): Promise<void> {
  const store = openStore(kind, home);
  const tape = new Tape({ store }).sessionTape(SESSION, WORKSPACE);
  await tape.append(anchorEntry("session/start", { owner: "human" }));
  const entries = history(ENTRIES - 1);
  // A handoff 30 entries before the end: the context is what follows it.
  if (lateAnchor) entries.splice(entries.length - 30, 1, anchorEntry("handoff", { summary: "" }));
  for (let i = 0; i < entries.length; i += 100) await tape.appendMany(entries.slice(i, i + 100));
  await store.close();
}

async function framework(store: Store, home: string, url: string) {
  const bub = new BubFramework({
    home,
    configFile: join(home, "config.yml"),
    loadDotenv: false,
    workspace: WORKSPACE,
    builtin: {
      env: { BUB_MODEL: "openai:gpt-test", BUB_API_KEY: "sk-bench", BUB_API_BASE: url },
    },
  });
  bub.loadBuiltinHooks();
  bub.register({ name: "bench-store", provideTapeStore: () => store });
  const builtin = bub.pluginManager.get("builtin") as BuiltinPlugin;
  const scope = await bub.running();
  return { bub, builtin, scope };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

async function measure(
  kind: Kind,
  url: string,
  lateAnchor: boolean,
): Promise<Record<string, number[]>> {
  const seed = mkdtempSync(join(tmpdir(), `bub-long-tape-${kind}-`));
  const out: Record<string, number[]> = {};
  for (const what of WHAT) out[what] = [];
  try {
    await prepare(kind, seed, lateAnchor);
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate the order, so garbage left by one measurement does not always land on the same next one.
      for (const what of round % 2 ? [...WHAT].reverse() : WHAT) {
        const home = mkdtempSync(join(tmpdir(), `bub-long-tape-${kind}-run-`));
        try {
          cpSync(seed, home, { recursive: true });
          const store = openStore(kind, home);
          // The store-level reads run on the bare store; the others inside a started framework.
          const storeLevel = what === "fullEventRead" || what === "latestEvents";
          const running = storeLevel ? null : await framework(store, home, url);
          try {
            const message = { channel: "cli", chatId: "local", content: "hello again" };
            const name = new Tape({ store }).sessionTape(SESSION, WORKSPACE).name;
            // A running process has its store open: opening it (SQLite) is not counted.
            await store.fetchAll(new TapeQuery("warm__up", store));
            const hook = running?.builtin.loadState as (a: unknown) => Promise<unknown>;
            if (what === "loadState") {
              await hook({ message: { ...message, chatId: "warm" }, sessionId: "cli:warm" });
            }
            await delay(20); // let start-up work settle
            const ms = await timed(() => {
              if (what === "fullEventRead") {
                return new TapeQuery(name, store).kinds("event").all();
              }
              if (what === "latestEvents") {
                return latestEvents(store, name, ["model_switch", "reasoning_effort_switch"]);
              }
              if (what === "loadState") return hook({ message, sessionId: SESSION });
              if (what === "readMessages") {
                return new Tape({ store }).sessionTape(SESSION, WORKSPACE).readMessages();
              }
              return running!.bub.processInbound(message, { stream: true });
            });
            out[what]!.push(ms);
          } finally {
            await running?.scope[Symbol.asyncDispose]();
            await store.close();
          }
        } finally {
          rmSync(home, { recursive: true, force: true });
        }
      }
    }
  } finally {
    rmSync(seed, { recursive: true, force: true });
  }
  return out;
}

const runtime = "Bun" in globalThis ? "bun" : "Deno" in globalThis ? "deno" : "node";
const server = await MockLlmServer.start({
  script: () => ({ text: ["Hello ", "again."], usage: { promptTokens: 10, completionTokens: 2 } }),
});
try {
  console.log(`long tape: ${ENTRIES} entries, ${ROUNDS} cold rounds, ${runtime}`);
  console.log(
    "store, last anchor | full event read | latestEvents | loadState | readMessages | first turn  (p50 / max)",
  );
  for (
    const [kind, lateAnchor] of [[`file`, false], [`file`, true], [`sqlite`, false], [
      `sqlite`,
      true,
    ]] as const
  ) {
    const rows = await measure(kind, server.url, lateAnchor);
    const cell = (values: number[]) =>
      `${median(values).toFixed(1)} / ${Math.max(...values).toFixed(1)} ms`;
    const label = `${kind}, ${lateAnchor ? "30 from end" : "bootstrap only"}`;
    console.log(`${label.padEnd(26)} | ${WHAT.map((what) => cell(rows[what]!)).join(" | ")}`);
  }
} finally {
  await server.close();
  rmSync(WORKSPACE, { recursive: true, force: true });
}
