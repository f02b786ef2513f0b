/**
 * The request path of one chat call in a long session, without the rest of a turn: a tape grown to
 * `BENCH_PRIOR` turns (default 1000; 4 messages a turn as in `turn.bench.ts`, the builtin system
 * prompt's size, 15 tools' size), then per call: the context read from the tape, the request body
 * built (`chatRequestBytes`), sent with the runtime's `fetch` to the mock server of
 * `turn.bench.ts` and its streamed answer read; one turn's 4 entries appended after every call
 * (the history grows as in a session; `BENCH_STEPS=2`: two calls per turn, the second with the
 * turn's tool call and result, as in `turn.bench.ts`). Beside it, the raw client sending the
 * same body as one flat string. CPU ms per turn in alternating rounds; `BENCH_BUILDERS` (comma-separated module
 * paths relative to this file) compares body builders A/B.
 *
 * Run: `bun bench/chat_body_send.ts` (or `node`, `deno run -A`). `BENCH_N` turns per round
 * (default 40), `BENCH_ROUNDS` (default 7); `BENCH_SEND=0` only reads each body once (encodes it
 * into a reused buffer) instead of sending it: the builder's own cost, without the network's noise.
 *
 * @module
 */
import process from "node:process";
import type { ChatMessage, ModelRequest } from "../src/agent/model_client.ts";
import { parseModelId } from "../src/agent/provider_presets.ts";
import { anchorEntry, messageEntry, toolCallEntry, toolResultEntry } from "../src/tape/entry.ts";
import { InMemoryTapeStore } from "../src/tape/memory_store.ts";
import { Tape } from "../src/tape/tape.ts";
import { startServer } from "./_bench_process.ts";

const PRIOR = Number(process.env.BENCH_PRIOR ?? 1000);
const N = Number(process.env.BENCH_N ?? 40);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
/** Calls per appended turn: 1, or 2 as in a turn with a tool call (`BENCH_STEPS`). */
const STEPS = Number(process.env.BENCH_STEPS ?? 1);
const BUILDERS = (process.env.BENCH_BUILDERS ?? "../src/agent/_chat_body.ts").split(",");

type Builder = (
  protocol: "openai-chat",
  id: ReturnType<typeof parseModelId>,
  request: ModelRequest,
) => Uint8Array<ArrayBuffer> | string | null;

const server = await startServer(new URL("./turn.bench.ts", import.meta.url).pathname);
const url = `${server.url}/chat/completions`;
const headers = { authorization: "Bearer sk-bench", "content-type": "application/json" };
const id = parseModelId("openai:bench");
const system = "You are Bub. ".repeat(280);
const tools = Array.from({ length: 15 }, (_, i) => ({
  type: "function",
  function: {
    name: `tool_${i}`,
    description: "Does something useful with the workspace. ".repeat(4),
    parameters: {
      type: "object",
      properties: { path: { type: "string", description: "A path" }, value: { type: "number" } },
      required: ["path"],
    },
  },
}));

const tape = new Tape({ store: new InMemoryTapeStore(), name: "bench__send" });
await tape.store.append("bench__send", anchorEntry("session/start", { owner: "human" }));
let turns = 0;
async function appendTurn(): Promise<void> {
  const i = turns++;
  const call = {
    id: `call_${i}`,
    type: "function",
    function: { name: "bench_noop", arguments: '{"value":1}' },
  };
  await tape.store.append("bench__send", messageEntry({ role: "user", content: `turn ${i}` }));
  await tape.store.append("bench__send", toolCallEntry([call]));
  await tape.store.append("bench__send", toolResultEntry(["ok"]));
  await tape.store.append(
    "bench__send",
    messageEntry({ role: "assistant", content: "Hello from the bench." }),
  );
}
for (let i = 0; i < PRIOR; i++) await appendTurn();

/** `BENCH_SEND=0`: the body is not sent, only read once (encoded into a reused buffer). */
const SEND = process.env.BENCH_SEND !== "0";
const sink = new Uint8Array(1 << 24);
const encoder = new TextEncoder();

async function send(body: string | Uint8Array<ArrayBuffer>): Promise<void> {
  if (!SEND) {
    if (typeof body === "string") encoder.encodeInto(body, sink);
    else sink.set(body);
    return;
  }
  const response = await fetch(url, { method: "POST", headers, body });
  const reader = response.body!.getReader();
  for (;;) {
    const { done } = await reader.read();
    if (done) break;
  }
}

const CALL = { id: "call_x", type: "function", function: { name: "bench_noop", arguments: "{}" } };
/** A turn's first call (`step` 0), or its second, after the tool call and its result (1). */
async function request(step = 0): Promise<ModelRequest> {
  const history = await tape.readMessages();
  const own: Record<string, unknown>[] = [{ role: "user", content: "next" }];
  if (step > 0) {
    own.push({ role: "assistant", content: null, tool_calls: [CALL] });
    own.push({ role: "tool", tool_call_id: "call_x", content: "ok" });
  }
  return {
    model: "openai:bench",
    messages: [
      { role: "system", content: system },
      ...history,
      ...own,
    ] as unknown as ChatMessage[],
    tools: tools as unknown as ModelRequest["tools"],
    maxTokens: 1024,
  };
}

const variants: [string, () => Promise<void>][] = [];
let lastBody: string | null = null;
for (const path of BUILDERS) {
  const { chatRequestBytes } = await import(path) as { chatRequestBytes: Builder };
  variants.push([path, async () => {
    for (let step = 0; step < STEPS; step++) {
      const body = chatRequestBytes("openai-chat", id, await request(step))!;
      lastBody = typeof body === "string" ? body : new TextDecoder().decode(body);
      await send(body);
    }
    await appendTurn();
  }]);
}
if (process.env.BENCH_PARTS) {
  const { chatRequestBytes } = await import(BUILDERS.at(-1)!) as { chatRequestBytes: Builder };
  variants.push(["parts: context read only", async () => {
    for (let step = 0; step < STEPS; step++) await request(step);
    await appendTurn();
  }]);
  variants.push(["parts: context read, body built, not sent", async () => {
    for (let step = 0; step < STEPS; step++) {
      chatRequestBytes("openai-chat", id, await request(step));
    }
    await appendTurn();
  }]);
}
variants.push(["raw: the last body, one flat string", async () => {
  for (let step = 0; step < STEPS; step++) await send(lastBody!);
  await appendTurn();
}]);

async function round(run: () => Promise<void>, n: number): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) await run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / n;
}
for (const [, run] of variants) await round(run, 10);
const results = new Map<string, number[]>();
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, run] of variants) {
    const list = results.get(name) ?? [];
    list.push(await round(run, N));
    results.set(name, list);
  }
}
server.child.stdin!.end();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log(
  `${PRIOR}+ prior turns, body ${
    lastBody!.length
  } chars; CPU ms per turn of ${STEPS} call(s) (median of ${ROUNDS} rounds of ${N})`,
);
for (const [name, list] of results) console.log(`${median(list).toFixed(3)}  ${name}`);
