/**
 * Run by a Node child of `cloud_provider_lazy.test.ts`: one streamed call of the model id given
 * as the first argument against a local mock server (its API base shaped for the provider),
 * printing the answer.
 *
 * @module
 */
import process from "node:process";
import { ProviderModelClient } from "../../src/agent/providers/provider_model_client.ts";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";

const model = process.argv[2] ?? "openai:gpt-test";
await using server = await MockLlmServer.start({ script: [mockReply.text("answered")] });
const origin = `http://127.0.0.1:${server.port}`;
const base = model.startsWith("gemini:") ? `${origin}/v1beta` : server.url;
const client = new ProviderModelClient({ apiKey: "sk-child-123456", apiBase: base });
let text = "";
for await (const event of client.stream({ model, messages: [{ role: "user", content: "hi" }] })) {
  if (event.type === "text") text += event.delta;
}
console.log(text);
