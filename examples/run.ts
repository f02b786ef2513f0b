/**
 * One turn with the builtin plugin against the model endpoint in BUB_API_BASE, printing the
 * answer. Any OpenAI-compatible server works (vLLM, Ollama, LM Studio, a hosted API):
 *
 *   BUB_API_BASE=http://127.0.0.1:8000/v1 BUB_MODEL=custom:my-model deno run -A examples/run.ts "hello"
 *
 * Without BUB_API_BASE it starts the mock model on 127.0.0.1 and runs against that.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { BubFramework, contentOf } from "../mod.ts";
import { demoResponder, MockLlmServer } from "../src/testing/mod.ts";

const message = process.argv.slice(2).join(" ") || "hello";
await using mock = process.env.BUB_API_BASE
  ? null
  : await MockLlmServer.start({ script: demoResponder });
if (mock) {
  process.env.BUB_API_BASE = mock.url;
  process.env.BUB_MODEL ??= "custom:demo";
  process.env.BUB_API_KEY ??= "demo-key";
}
if (!process.env.BUB_MODEL) process.env.BUB_MODEL = "custom:default";

// A throwaway home keeps this example's tapes out of ~/.bub.
const home = process.env.BUB_HOME ?? mkdtempSync(join(tmpdir(), "bub-run-"));
const bub = new BubFramework({ home });
bub.loadBuiltinHooks();
await using _scope = await bub.running();
const result = await bub.processInbound({ channel: "cli", chatId: "local", content: message }, {
  stream: true,
});
for (const outbound of result.outbounds) console.log(contentOf(outbound));
