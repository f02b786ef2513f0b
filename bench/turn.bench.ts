/**
 * One agent turn end to end: a streamed model call answering with a tool call, the tool, and a
 * streamed final text — against a `MockLlmServer` in its own process, a fresh session per turn.
 *
 * Variants, side by side in one run: a raw `fetch` + SSE baseline doing the same two HTTP calls;
 * the raw client sending Bub's request bytes, alone and then writing the turn's tape bytes with
 * an `fdatasync` (to a new file per turn, or appended to one open file: what durability alone
 * costs, see `_turn_durable.ts`); Bub (`processInbound` with the builtin plugin, its tools on the
 * host: `sandbox: off`, as the raw client and the peers run theirs); Bub with 10 no-op plugins
 * implementing every stage hook of the turn; Bub with `sandbox: remote`, the chats' default, whose
 * new sessions start a spare sandbox while the model is asked; and, when installed in `bench/.peers` (`npm install --no-save ai
 * @mariozechner/pi-agent-core @ai-sdk/openai-compatible` there), the AI SDK `ToolLoopAgent` and
 * pi's `Agent`. Reports p50/p95 per turn (`BENCH_WARMUP` warm-up turns of each, default 200, then
 * `BENCH_N` turns, default 300, in rotating blocks of `BENCH_BLOCK`, default 25), the p50 overhead
 * over raw, and the heap retained per Bub turn (after GC) on Node 24, Deno and Bun.
 *
 * Run: `scripts/tool deno run -A bench/turn.bench.ts`.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { rawBytesTurn, rawTurn, recordBodies, TEXT, type Turn } from "./lib/_turn_raw.ts";
import { type GrowthRow, measureGrowth } from "./lib/_turn_growth.ts";
import { durableRawTurn } from "./lib/_turn_durable.ts";
import { createBenchBub } from "./lib/_bench_bub.ts";
import { collectGarbage, runtimeCommand, startServer } from "./lib/_bench_process.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const PEERS = join(ROOT, "bench/.peers");
const WARMUP = Number(process.env.BENCH_WARMUP ?? 200);
const N = Number(process.env.BENCH_N ?? 300);
const BLOCK = Math.max(1, Number(process.env.BENCH_BLOCK ?? 25));
const HEAP_TURNS = 200;
const STAGES = [
  "resolveSession",
  "loadState",
  "buildPrompt",
  "systemPrompt",
  "saveState",
  "renderOutbound",
  "dispatchOutbound",
  "beforeLlmCall",
  "afterLlmCall",
  "beforeToolCall",
  "afterToolCall",
];

interface Row {
  p50: number;
  p95: number;
  /** Mean CPU time of this process per turn, ms (less sensitive to a loaded machine). */
  cpu: number;
}

// ---------------------------------------------------------------- server process

async function serve(): Promise<void> {
  const { MockLlmServer } = await import("../src/testing/mock_llm_server.ts");
  const server: { requests: unknown[]; url: string; close(): Promise<void> } = await MockLlmServer
    .start({
      script: (request) => {
        // Long same-session runs send megabytes: keep no history of requests.
        server.requests.length = 0;
        const body = request.body as { messages?: Array<{ role?: string }> };
        if (body.messages?.at(-1)?.role !== "tool") {
          return {
            toolCalls: [{ name: "bench_noop", arguments: { value: 1 } }],
            usage: { promptTokens: 10, completionTokens: 2 },
          };
        }
        return { text: [...TEXT], usage: { promptTokens: 12, completionTokens: 4 } };
      },
    });
  console.log(server.url);
  process.stdin.resume();
  process.stdin.on("end", () => void server.close().then(() => process.exit(0)));
  process.once("SIGTERM", () => void server.close().then(() => process.exit(0)));
}

// ---------------------------------------------------------------- variants

interface BubHandle {
  turn: Turn;
  close: () => Promise<void>;
  /** Its home folder (file tapes in `tapes/`). */
  home: string;
}

async function bubTurn(
  url: string,
  noopPlugins: number,
  memoryTape = false,
  session: string | null = null,
  sandbox: "off" | "remote" = "off",
): Promise<BubHandle> {
  const { bub, home } = await createBenchBub(url, {
    prefix: "bub-turn-bench-",
    memoryTape,
    env: { BUB_MAX_TOKENS: "1024", BUB_SANDBOX: sandbox },
  });
  for (let p = 0; p < noopPlugins; p++) {
    const plugin: Record<string, unknown> = { name: `noop-${p}` };
    for (const stage of STAGES) plugin[stage] = () => null;
    bub.register(plugin);
  }
  const scope = await bub.running();
  return {
    home,
    turn: async (i) => {
      const result = await bub.processInbound(
        { channel: "bench", chatId: session ?? `c${noopPlugins}-${i}`, content: `turn ${i}` },
        { stream: true },
      );
      if (result.modelOutput !== TEXT.join("")) {
        throw new Error(`bub: unexpected ${result.modelOutput}`);
      }
    },
    close: async () => {
      await scope[Symbol.asyncDispose]();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

// deno-lint-ignore no-explicit-any
type Any = any;

async function peerImport(name: string): Promise<Any> {
  const require = createRequire(join(PEERS, "package.json"));
  return await import(pathToFileURL(require.resolve(name)).href);
}

async function aiSdkTurn(url: string): Promise<Turn> {
  const ai = await peerImport("ai");
  const { createOpenAICompatible } = await peerImport("@ai-sdk/openai-compatible");
  const model = createOpenAICompatible({ name: "bench", baseURL: url, apiKey: "sk-bench" })
    .chatModel("bench");
  const agent = new ai.ToolLoopAgent({
    model,
    instructions: "You are a bench.",
    maxOutputTokens: 1024,
    tools: {
      bench_noop: ai.tool({
        description: "Does nothing",
        inputSchema: ai.jsonSchema({ type: "object", properties: { value: { type: "number" } } }),
        execute: () => "ok",
      }),
    },
  });
  return async (i) => {
    const result = await agent.stream({ prompt: `turn ${i}` });
    let text = "";
    for await (const delta of result.textStream) text += delta;
    if (text !== TEXT.join("")) throw new Error(`ai: unexpected ${text}`);
  };
}

async function piTurn(url: string): Promise<Turn> {
  const { Agent } = await peerImport("@mariozechner/pi-agent-core");
  const { Type } = await peerImport("typebox");
  const model = {
    id: "bench",
    name: "bench",
    api: "openai-completions",
    provider: "bench",
    baseUrl: url,
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 128000,
    maxTokens: 1024,
  };
  const tool = {
    name: "bench_noop",
    label: "noop",
    description: "Does nothing",
    parameters: Type.Object({ value: Type.Number() }),
    execute: () => Promise.resolve({ content: [{ type: "text", text: "ok" }], details: {} }),
  };
  return async (i) => {
    const agent = new Agent({
      initialState: { systemPrompt: "You are a bench.", model, tools: [tool] },
      getApiKey: () => "sk-bench",
    });
    let text = "";
    agent.subscribe((event: Any) => {
      if (event.type === "message_update" && event.assistantMessageEvent?.type === "text_delta") {
        text += event.assistantMessageEvent.delta;
      }
    });
    await agent.prompt(`turn ${i}`);
    if (text !== TEXT.join("")) throw new Error(`pi: unexpected ${JSON.stringify(text)}`);
  };
}

// ---------------------------------------------------------------- measuring

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

/**
 * Times the variants in rotation, so a change in machine load hits all alike: blocks of `BLOCK`
 * turns of each variant in turn (a runtime runs its turns one after another, as a deployment does;
 * with `BENCH_BLOCK=1 BENCH_WARMUP=20`, the method before 2026-12-02, every turn also pays for
 * the caches the other variants took: the same code's memory tape read +0.29–0.51 ms over raw
 * (same bytes) on Node in blocks against +1.21 turn by turn), after `WARMUP` turns of each (the
 * JIT's tiers settle in the first hundreds).
 */
async function timeInterleaved(variants: Record<string, Turn>): Promise<Record<string, Row>> {
  const names = Object.keys(variants);
  for (const name of names) for (let i = 0; i < WARMUP; i++) await variants[name]!(i);
  const samples: Record<string, number[]> = {};
  const cpu: Record<string, number> = {};
  for (const name of names) [samples[name], cpu[name]] = [[], 0];
  for (let done = 0; done < N; done += BLOCK) {
    for (const name of names) {
      for (let i = done; i < Math.min(N, done + BLOCK); i++) {
        const cpuStart = process.cpuUsage();
        const start = performance.now();
        await variants[name]!(WARMUP + i);
        samples[name]!.push(performance.now() - start);
        const used = process.cpuUsage(cpuStart);
        cpu[name]! += (used.user + used.system) / 1000;
      }
    }
  }
  const rows: Record<string, Row> = {};
  for (const name of names) {
    const sorted = samples[name]!.sort((a, b) => a - b);
    rows[name] = {
      p50: percentile(sorted, 0.5),
      p95: percentile(sorted, 0.95),
      cpu: cpu[name]! / N,
    };
  }
  return rows;
}

async function retainedPerTurn(turn: Turn): Promise<number | null> {
  if (!collectGarbage()) return null;
  for (let i = 0; i < WARMUP; i++) await turn(900_000 + i);
  collectGarbage();
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < HEAP_TURNS; i++) await turn(910_000 + i);
  collectGarbage();
  collectGarbage();
  return (process.memoryUsage().heapUsed - before) / HEAP_TURNS;
}

const GROWTH = (process.env.BENCH_GROWTH ?? "10,100,300,1000").split(",").map(Number)
  .filter((level) => level > 0);
const GROWTH_SAMPLES = Number(process.env.BENCH_GROWTH_SAMPLES ?? 30);

async function measure(url: string): Promise<void> {
  const rows: Record<string, Row | { error: string }> = {};
  const variants: Record<string, Turn> = {};
  const closers: Array<() => Promise<void>> = [];
  const attempt = async (name: string, make: () => Promise<Turn>) => {
    try {
      variants[name] = await make();
      await variants[name]!(-1);
    } catch (error) {
      delete variants[name];
      rows[name] = { error: String(error instanceof Error ? error.message : error).slice(0, 120) };
    }
  };
  const bub = await bubTurn(url, 0);
  closers.push(bub.close);
  // Bub's exact request bytes of a fresh-session turn (both calls), for the raw client.
  const bodies = await recordBodies(() => bub.turn(-2));
  await attempt("raw fetch+SSE", () => Promise.resolve(rawTurn(url)));
  await attempt("raw, Bub's request bytes", () => Promise.resolve(rawBytesTurn(url, bodies)));
  // What that turn wrote to its (new) tape file: the durable rows write as many bytes.
  const tapes = join(bub.home, "tapes");
  const tapeBytes = readdirSync(tapes).filter((name) => name.endsWith(".jsonl"))
    .reduce((sum, name) => sum + statSync(join(tapes, name)).size, 0);
  for (const kind of ["new file", "append"] as const) {
    const durable = durableRawTurn(url, bodies, tapeBytes, kind);
    closers.push(() => Promise.resolve(durable.close()));
    await attempt(`raw, Bub's bytes + fdatasync'd ${kind}`, () => Promise.resolve(durable.turn));
  }
  variants["bub"] = bub.turn;
  const hooked = await bubTurn(url, 10);
  closers.push(hooked.close);
  variants["bub + 10 no-op hooks/stage"] = hooked.turn;
  const memory = await bubTurn(url, 0, true);
  closers.push(memory.close);
  variants["bub, in-memory tape store"] = memory.turn;
  // The chats' default: each new session's first turn starts a spare sandbox while the model is
  // asked (`environment/_sandbox_spare.ts`); the rows above run tools on the host, as the raw
  // client and the peers do.
  const sandboxed = await bubTurn(url, 0, false, null, "remote");
  closers.push(sandboxed.close);
  variants["bub, sandbox: remote (the chats' default)"] = sandboxed.turn;
  if (existsSync(join(PEERS, "node_modules/ai"))) {
    await attempt("ai ToolLoopAgent", () => aiSdkTurn(url));
  } else rows["ai ToolLoopAgent"] = { error: "not installed in bench/.peers" };
  if (existsSync(join(PEERS, "node_modules/@mariozechner/pi-agent-core"))) {
    await attempt("pi-agent-core Agent", () => piTurn(url));
  } else rows["pi-agent-core Agent"] = { error: "not installed in bench/.peers" };
  Object.assign(rows, await timeInterleaved(variants));
  const retained = await retainedPerTurn(bub.turn);
  for (const close of closers) await close();
  let growth: GrowthRow[] = [];
  let sessionRetained: number | null = null;
  if (GROWTH.length > 0) {
    const same = await bubTurn(url, 0, false, "same-session");
    const gc = collectGarbage() ? () => void collectGarbage() : null;
    const result = await measureGrowth(url, same.turn, GROWTH, GROWTH_SAMPLES, gc);
    [growth, sessionRetained] = [result.rows, result.retainedPerTurn];
    await same.close();
  }
  const requestBytes = bodies.map((body) => new TextEncoder().encode(body).length);
  console.log(
    JSON.stringify({ rows, retained, growth, sessionRetained, requestBytes, tapeBytes }),
  );
}

// ---------------------------------------------------------------- driver

interface Measured {
  rows: Record<string, Row & { error?: string }>;
  retained: number | null;
  growth: GrowthRow[];
  sessionRetained: number | null;
  requestBytes: number[];
  tapeBytes: number;
}

const f = (n: number | undefined) => (n === undefined ? "n/a" : n.toFixed(2));
const kb = (n: number | null) => (n === null ? "n/a" : (n / 1024).toFixed(2));

function rowLines(runtime: string, result: Measured): string[] {
  const lines: string[] = [];
  const raw = result.rows["raw fetch+SSE"]?.p50;
  const rawBytes = result.rows["raw, Bub's request bytes"]?.p50;
  for (const [name, row] of Object.entries(result.rows)) {
    if (row.error) {
      lines.push(`| ${runtime} | ${name} | n/a (${row.error}) | | | | |`);
      continue;
    }
    const over = (base: number | undefined) => {
      if (base === undefined || name === "raw fetch+SSE" || name === "raw, Bub's request bytes") {
        return "—";
      }
      const d = row.p50 - base;
      return (d >= 0 ? "+" : "") + f(d);
    };
    lines.push(
      `| ${runtime} | ${name} | ${f(row.p50)} | ${f(row.p95)} | ${f(row.cpu)} | ${over(raw)} | ${
        over(rawBytes)
      } |`,
    );
  }
  return lines;
}

async function main(): Promise<void> {
  const script = new URL(import.meta.url).pathname;
  const server = await startServer(script);
  const lines = [
    `Turn = streamed tool call → tool → streamed text; ${WARMUP} warm-up, N=${N}, variants timed in rotating blocks of ${BLOCK}; mock server in a separate Node 24 process. cpu = this process's CPU time per turn.`,
    "",
    "| runtime | variant | p50 ms | p95 ms | cpu ms | p50 over raw | p50 over raw (Bub's bytes) |",
    "|---|---|---|---|---|---|---|",
  ];
  const heap: string[] = [];
  const growth: string[] = [];
  const sizes: string[] = [];
  try {
    for (const runtime of ["node24", "deno", "bun"]) {
      const [exe, args] = runtimeCommand(runtime, script, ["--measure", server.url]);
      let result: Measured;
      try {
        const out = execFileSync(exe, args, { encoding: "utf8", maxBuffer: 1 << 26 });
        result = JSON.parse(out.trim().split("\n").at(-1)!);
      } catch (error) {
        lines.push(`| ${runtime} | (failed: ${String(error).slice(0, 80)}) | | | | | |`);
        continue;
      }
      // Each runtime's raw result as it arrives, so a cut-short run still shows what it measured.
      console.error(`${runtime}: ${JSON.stringify(result)}`);
      lines.push(...rowLines(runtime, result));
      heap.push(`| ${runtime} | ${kb(result.retained)} | ${kb(result.sessionRetained)} |`);
      for (const row of result.growth) {
        growth.push(
          `| ${runtime} | ${row.prior} | ${f(row.bub)} | ${f(row.raw)} | ${
            (row.bub / row.raw).toFixed(2)
          }× | ${row.bytes} |`,
        );
      }
      sizes.push(`| ${runtime} | ${result.requestBytes.join(" + ")} | ${result.tapeBytes} |`);
    }
  } finally {
    server.child.stdin!.end();
    server.child.kill("SIGTERM");
  }
  lines.push(
    "",
    `Same session (one chat, prior turns), p50 ms, Bub beside the raw client sending Bub's bytes of that turn:`,
    "",
    "| runtime | prior turns | bub | raw, same bytes | ratio | request bytes (2 calls) |",
    "|---|---|---|---|---|---|",
    ...growth,
    "",
    "Size of a fresh-session turn: request bytes per call (the raw rows send exactly these) and the bytes its tape file holds (the fdatasync'd rows write as many):",
    "",
    "| runtime | request bytes | tape bytes |",
    "|---|---|---|",
    ...sizes,
    "",
    `Heap retained per Bub turn after GC: fresh sessions (${HEAP_TURNS} turns, file tape) and one long session (from 100 prior turns on):`,
    "",
    "| runtime | KB/turn, fresh sessions | KB/turn, one session |",
    "|---|---|---|",
    ...heap,
  );
  console.log(lines.join("\n"));
}

if (process.argv.includes("--server")) await serve();
else if (process.argv.includes("--measure")) await measure(process.argv.at(-1)!);
else await main();
