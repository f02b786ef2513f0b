/**
 * The model runner's request path in a long session with and without vouched history copies
 * (`src/tape/_handed_copies.ts`): one runner with Bub's own provider client (its history copies
 * vouched for, no comparison) and one whose client passes each call straight on to the same
 * kind of client (not noted: every copy compared), on one memory tape grown to `BENCH_PRIOR`
 * turns (default 1000; 4 messages a turn), against the mock server of `turn.bench.ts`. CPU ms
 * per call in alternating rounds of `BENCH_N` calls (default 30), `BENCH_ROUNDS` rounds (5).
 *
 * Run: `bun bench/runner_vouch.ts` (or `node`, `deno run -A`).
 *
 * @module
 */
import process from "node:process";
import { ModelRunner } from "../src/agent/model_runner.ts";
import type { ModelClient } from "../src/agent/model_client.ts";
import { ProviderModelClient } from "../src/agent/providers.ts";
import { anchorEntry, messageEntry, toolCallEntry, toolResultEntry } from "../src/tape/entry.ts";
import { InMemoryTapeStore } from "../src/tape/memory_store.ts";
import { Tape } from "../src/tape/tape.ts";
import { startServer } from "./_bench_process.ts";

const PRIOR = Number(process.env.BENCH_PRIOR ?? 1000);
const N = Number(process.env.BENCH_N ?? 30);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const server = await startServer(new URL("./turn.bench.ts", import.meta.url).pathname);
const tape = new Tape({ store: new InMemoryTapeStore(), name: "bench__vouch" });
await tape.store.append("bench__vouch", anchorEntry("session/start", { owner: "human" }));
for (let i = 0; i < PRIOR; i++) {
  const call = { id: `call_${i}`, type: "function", function: { name: "f", arguments: "{}" } };
  await tape.store.append("bench__vouch", messageEntry({ role: "user", content: `turn ${i}` }));
  await tape.store.append("bench__vouch", toolCallEntry([call]));
  await tape.store.append("bench__vouch", toolResultEntry(["ok"]));
  await tape.store.append("bench__vouch", messageEntry({ role: "assistant", content: "Hello." }));
}
const settings = { apiKey: "sk-bench", apiBase: server.url };
const own = new ProviderModelClient(settings);
const inner = new ProviderModelClient(settings);
const passOn: ModelClient = {
  specificationVersion: inner.specificationVersion,
  stream: (request, options) => inner.stream(request, options),
};
const runners: [string, ModelRunner][] = [
  ["vouched (own client)", new ModelRunner(own, null, { model: "openai:bench", maxTokens: 1024 })],
  [
    "compared (passed-on client)",
    new ModelRunner(passOn, null, { model: "openai:bench", maxTokens: 1024 }),
  ],
];
const system = "You are Bub. ".repeat(280);

async function call(runner: ModelRunner): Promise<void> {
  const stream = runner.run({
    tape,
    model: "openai:bench",
    tools: [],
    systemPrompt: system,
    prompt: "next",
    state: {},
  });
  for await (const _ of stream) { /* drain */ }
}

const results = new Map<string, number[]>();
for (const [, runner] of runners) for (let i = 0; i < 10; i++) await call(runner);
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, runner] of runners) {
    const start = process.cpuUsage();
    for (let i = 0; i < N; i++) await call(runner);
    const used = process.cpuUsage(start);
    results.set(name, [...(results.get(name) ?? []), (used.user + used.system) / 1000 / N]);
  }
}
server.child.stdin!.end();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log(`${PRIOR} prior turns; CPU ms per call (median of ${ROUNDS} rounds of ${N})`);
for (const [name, list] of results) console.log(`${median(list).toFixed(3)}  ${name}`);
process.exit(0);
