/**
 * The cluster bench's mock model, in its own process: prints its URL on the first line, then
 * answers every call after a fixed latency (`CLUSTER_MODEL_LATENCY_MS`, default 50 ms) with
 * `reply <tag>`, where the tag is the last `TAG-…` word of the last user message. Stops when stdin
 * ends or on SIGTERM.
 *
 * @module
 */
import process from "node:process";
import { MockLlmServer, type MockRequest } from "../../src/testing/mod.ts";

function lastUserText(request: MockRequest): string {
  const messages = (request.body as { messages?: { role?: string; content?: unknown }[] })
    .messages ?? [];
  const content = messages.findLast((message) => message.role === "user")?.content;
  return typeof content === "string" ? content : JSON.stringify(content ?? "");
}

const server = await MockLlmServer.start({
  latencyMs: Number(process.env.CLUSTER_MODEL_LATENCY_MS ?? 50),
  script: (request: MockRequest) => {
    const tag = lastUserText(request).match(/TAG-[\w-]+/g)?.at(-1) ?? "TAG-none";
    return { text: ["reply ", tag], usage: { promptTokens: 10, completionTokens: 2 } };
  },
});
console.log(server.url);
const stop = () => void server.close().then(() => process.exit(0));
process.stdin.resume();
process.stdin.on("end", stop);
process.once("SIGTERM", stop);
