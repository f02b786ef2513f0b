/**
 * One agent turn end to end: a streamed model call answering with a tool call, the tool, and a
 * streamed final text — against a `MockLlmServer` in its own process, a fresh session per turn.
 *
 * Variants, side by side in one run: a raw `fetch` + SSE baseline doing the same two HTTP calls;
 * Bub (`processInbound` with the builtin plugin); Bub with 10 no-op plugins implementing every
 * stage hook of the turn; and, when installed in `bench/.peers` (`npm install --no-save ai
 * @mariozechner/pi-agent-core @ai-sdk/openai-compatible` there), the AI SDK `ToolLoopAgent` and
 * pi's `Agent`. Reports p50/p95 per turn (20 warm-up, N turns, `BENCH_N`, default 300), the p50
 * overhead over raw, and the heap retained per Bub turn (after GC) on Node 24, Deno and Bun.
 *
 * Run: `scripts/tool deno run -A bench/turn.bench.ts`.
 *
 * @module
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";

const ROOT = new URL("..", import.meta.url).pathname;
const PEERS = join(ROOT, "bench/.peers");
const WARMUP = 20;
const N = Number(process.env.BENCH_N ?? 300);
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
const TEXT = ["Hello ", "from ", "the ", "bench."];

type Turn = (i: number) => Promise<void>;
interface Row {
  p50: number;
  p95: number;
  note?: string;
}

// ---------------------------------------------------------------- server process

async function serve(): Promise<void> {
  const { MockLlmServer } = await import("../src/testing/mock_llm_server.ts");
  const server = await MockLlmServer.start({
    script: (request) => {
      const body = request.body as { messages?: Array<{ role?: string }> };
      if (body.messages?.at(-1)?.role !== "tool") {
        return {
          toolCalls: [{ name: "bench_noop", arguments: { value: 1 } }],
          usage: { promptTokens: 10, completionTokens: 2 },
        };
      }
      return { text: TEXT, usage: { promptTokens: 12, completionTokens: 4 } };
    },
  });
  console.log(server.url);
  process.stdin.resume();
  process.stdin.on("end", () => void server.close().then(() => process.exit(0)));
  process.once("SIGTERM", () => void server.close().then(() => process.exit(0)));
}

// ---------------------------------------------------------------- variants

async function* sseData(response: Response): AsyncGenerator<string> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      for (const line of event.split("\n")) {
        if (line.startsWith("data: ")) yield line.slice(6);
      }
    }
  }
}

function rawTurn(url: string): Turn {
  const tools = [{
    type: "function",
    function: {
      name: "bench_noop",
      description: "Does nothing",
      parameters: { type: "object", properties: { value: { type: "number" } } },
    },
  }];
  const call = async (messages: unknown[]) => {
    const response = await fetch(`${url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-bench" },
      body: JSON.stringify({ model: "bench", messages, tools, stream: true, max_tokens: 1024 }),
    });
    let text = "";
    const calls: Array<
      { id: string; type: string; function: { name: string; arguments: string } }
    > = [];
    for await (const data of sseData(response)) {
      if (data === "[DONE]") break;
      const delta = JSON.parse(data).choices?.[0]?.delta ?? {};
      if (delta.content) text += delta.content;
      for (const piece of delta.tool_calls ?? []) {
        const target = calls[piece.index] ??= {
          id: "",
          type: "function",
          function: { name: "", arguments: "" },
        };
        if (piece.id) target.id = piece.id;
        if (piece.function?.name) target.function.name += piece.function.name;
        if (piece.function?.arguments) target.function.arguments += piece.function.arguments;
      }
    }
    return { text, calls };
  };
  return async (i) => {
    const messages: unknown[] = [{ role: "system", content: "You are a bench." }, {
      role: "user",
      content: `turn ${i}`,
    }];
    const first = await call(messages);
    const results = first.calls.map((c) => {
      JSON.parse(c.function.arguments);
      return "ok";
    });
    messages.push({ role: "assistant", content: null, tool_calls: first.calls });
    first.calls.forEach((c, k) =>
      messages.push({ role: "tool", tool_call_id: c.id, content: results[k] })
    );
    const second = await call(messages);
    if (second.text !== TEXT.join("")) throw new Error(`raw: unexpected text ${second.text}`);
  };
}

interface BubHandle {
  turn: Turn;
  close: () => Promise<void>;
}

async function bubTurn(url: string, noopPlugins: number, memoryTape = false): Promise<BubHandle> {
  const { BubFramework } = await import("../src/builtin/framework.ts");
  const { defineTool } = await import("../src/tools/tool.ts");
  const { z } = await import("zod");
  const home = mkdtempSync(join(tmpdir(), "bub-turn-bench-"));
  const bub = new BubFramework({
    home,
    configFile: join(home, "config.yml"),
    loadDotenv: false,
    workspace: home,
    builtin: {
      env: {
        BUB_MODEL: "openai:bench",
        BUB_API_KEY: "sk-bench",
        BUB_API_BASE: url,
        BUB_MAX_TOKENS: "1024",
      },
    },
  });
  bub.loadBuiltinHooks();
  const builtin = bub.pluginManager.get("builtin") as {
    runtime: { registry: { register(t: unknown): void } };
  };
  builtin.runtime.registry.register(defineTool({
    name: "bench_noop",
    description: "Does nothing",
    parameters: z.object({ value: z.number() }),
    handler: () => "ok",
  }));
  if (memoryTape) {
    const { InMemoryTapeStore } = await import("../src/tape/memory_store.ts");
    bub.register({ name: "memory-tape", provideTapeStore: () => new InMemoryTapeStore() });
  }
  for (let p = 0; p < noopPlugins; p++) {
    const plugin: Record<string, unknown> = { name: `noop-${p}` };
    for (const stage of STAGES) plugin[stage] = () => null;
    bub.register(plugin);
  }
  const scope = await bub.running();
  return {
    turn: async (i) => {
      const result = await bub.processInbound(
        { channel: "bench", chatId: `c${noopPlugins}-${i}`, content: `turn ${i}` },
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

async function time(turn: Turn, offset: number): Promise<Row> {
  for (let i = 0; i < WARMUP; i++) await turn(offset + i);
  const samples: number[] = [];
  for (let i = 0; i < N; i++) {
    const start = performance.now();
    await turn(offset + WARMUP + i);
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 0.5), p95: percentile(samples, 0.95) };
}

function collectGarbage(): boolean {
  const g = (globalThis as { gc?: () => void }).gc;
  const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun;
  if (bun) bun.gc(true);
  else if (g) g();
  else return false;
  return true;
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

async function measure(url: string): Promise<void> {
  const rows: Record<string, Row | { error: string }> = {};
  const attempt = async (name: string, make: () => Promise<Turn>, offset: number) => {
    try {
      rows[name] = await time(await make(), offset);
    } catch (error) {
      rows[name] = { error: String(error instanceof Error ? error.message : error).slice(0, 120) };
    }
  };
  await attempt("raw fetch+SSE", () => Promise.resolve(rawTurn(url)), 0);
  const bub = await bubTurn(url, 0);
  rows["bub"] = await time(bub.turn, 0);
  const retained = await retainedPerTurn(bub.turn);
  await bub.close();
  const hooked = await bubTurn(url, 10);
  rows["bub + 10 no-op hooks/stage"] = await time(hooked.turn, 0);
  await hooked.close();
  const memory = await bubTurn(url, 0, true);
  rows["bub, in-memory tape store"] = await time(memory.turn, 0);
  await memory.close();
  if (existsSync(join(PEERS, "node_modules/ai"))) {
    await attempt("ai ToolLoopAgent", () => aiSdkTurn(url), 0);
  } else rows["ai ToolLoopAgent"] = { error: "not installed in bench/.peers" };
  if (existsSync(join(PEERS, "node_modules/@mariozechner/pi-agent-core"))) {
    await attempt("pi-agent-core Agent", () => piTurn(url), 0);
  } else rows["pi-agent-core Agent"] = { error: "not installed in bench/.peers" };
  console.log(JSON.stringify({ rows, retained }));
}

// ---------------------------------------------------------------- driver

function runtimeCommand(name: string, script: string, args: string[]): [string, string[]] {
  const bin = join(ROOT, ".tools/bin", name);
  const exe = existsSync(bin) ? bin : name;
  if (name === "deno") return [exe, ["run", "-A", "--v8-flags=--expose-gc", script, ...args]];
  if (name.startsWith("node")) return [exe, ["--expose-gc", script, ...args]];
  return [exe, [script, ...args]];
}

async function startServer(script: string): Promise<{ url: string; child: ChildProcess }> {
  const [exe, args] = runtimeCommand("node24", script, ["--server"]);
  const child = spawn(exe, args, { stdio: ["pipe", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Uint8Array) => {
      out += new TextDecoder().decode(chunk);
      const line = out.split("\n")[0];
      if (out.includes("\n") && line) resolve(line.trim());
    });
    child.once("exit", (code) => reject(new Error(`mock server exited with ${code}`)));
  });
  return { url, child };
}

async function main(): Promise<void> {
  const script = new URL(import.meta.url).pathname;
  const server = await startServer(script);
  const f = (n: number | undefined) => (n === undefined ? "n/a" : n.toFixed(2));
  const lines = [
    `Turn = streamed tool call → tool → streamed text; ${WARMUP} warm-up, N=${N}; mock server in a separate Node 24 process.`,
    "",
    "| runtime | variant | p50 ms | p95 ms | p50 over raw ms |",
    "|---|---|---|---|---|",
  ];
  const heap: string[] = [];
  try {
    for (const runtime of ["node24", "deno", "bun"]) {
      const [exe, args] = runtimeCommand(runtime, script, ["--measure", server.url]);
      let result: { rows: Record<string, Row & { error?: string }>; retained: number | null };
      try {
        const out = execFileSync(exe, args, { encoding: "utf8", maxBuffer: 1 << 26 });
        result = JSON.parse(out.trim().split("\n").at(-1)!);
      } catch (error) {
        lines.push(`| ${runtime} | (failed: ${String(error).slice(0, 80)}) | | | |`);
        continue;
      }
      const raw = result.rows["raw fetch+SSE"]?.p50;
      for (const [name, row] of Object.entries(result.rows)) {
        if (row.error) {
          lines.push(`| ${runtime} | ${name} | n/a (${row.error}) | | |`);
          continue;
        }
        const over = raw === undefined ? undefined : row.p50 - raw;
        lines.push(
          `| ${runtime} | ${name} | ${f(row.p50)} | ${f(row.p95)} | ${
            name.startsWith("raw") ? "—" : (over! >= 0 ? "+" : "") + f(over)
          } |`,
        );
      }
      heap.push(
        `| ${runtime} | ${
          result.retained === null ? "n/a (no gc)" : (result.retained / 1024).toFixed(2)
        } |`,
      );
    }
  } finally {
    server.child.stdin!.end();
    server.child.kill("SIGTERM");
  }
  lines.push(
    "",
    `Heap retained per Bub turn after GC (${HEAP_TURNS} turns, file tape store):`,
    "",
    "| runtime | KB/turn |",
    "|---|---|",
    ...heap,
  );
  console.log(lines.join("\n"));
}

if (process.argv.includes("--server")) await serve();
else if (process.argv.includes("--measure")) await measure(process.argv.at(-1)!);
else await main();
