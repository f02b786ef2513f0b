/**
 * A model server that streams chat-completions text (1 KiB deltas) until the client
 * disconnects, read by Bub's model runner with its default answer limit. Prints how the call
 * ended, the seconds, the megabytes the server sent and the peak RSS growth. `SECONDS` stops
 * the call after that long (default 20) when nothing else ends it.
 *
 * Run: `scripts/tool node bench/answer_flood.ts` (or deno run -A, bun).
 *
 * @module
 */
import { createServer } from "node:http";
import process from "node:process";
import { ModelRunner } from "../src/agent/model_runner.ts";
import { ProviderModelClient } from "../src/agent/providers.ts";
import { InMemoryTapeStore } from "../src/tape/memory_store.ts";
import { Tape } from "../src/tape/tape.ts";

const SECONDS = Number(process.env.SECONDS ?? 20);
const piece = "x".repeat(1024);
const chunk = `data: ${
  JSON.stringify({
    id: "c",
    object: "chat.completion.chunk",
    created: 1,
    model: "m",
    choices: [{ index: 0, delta: { content: piece }, finish_reason: null }],
  })
}\n\n`;
let sent = 0;
const server = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "text/event-stream" });
  const pump = () => {
    while (!res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once("drain", pump);
    }
  };
  pump();
});
const port = await new Promise<number>((resolve) =>
  server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port))
);
const runner = new ModelRunner(
  new ProviderModelClient({ apiKey: "k", apiBase: `http://127.0.0.1:${port}/v1` }),
  null,
  { model: "openai:m", modelTimeoutSeconds: null },
);
const tape = new Tape({ store: new InMemoryTapeStore() }).sessionTape("s", "/tmp");
await tape.ensureBootstrapAnchor();
const before = process.memoryUsage().rss;
let peak = before;
const sampler = setInterval(() => peak = Math.max(peak, process.memoryUsage().rss), 50);
const started = performance.now();
let ended = "";
try {
  for await (
    const _ of runner.run({
      tape,
      model: "openai:m",
      tools: [],
      systemPrompt: "",
      prompt: "go",
      state: {},
      signal: AbortSignal.timeout(SECONDS * 1000),
    })
  ) { /* consume */ }
  ended = "finished";
} catch (error) {
  ended = String((error as Error).message ?? error).slice(0, 120);
}
clearInterval(sampler);
console.log({
  ended,
  seconds: ((performance.now() - started) / 1000).toFixed(1),
  "server sent MB": (sent / 1e6).toFixed(0),
  "peak RSS growth MB": ((peak - before) / 1e6).toFixed(0),
});
server.closeAllConnections();
server.close();
