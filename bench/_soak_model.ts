/**
 * The soak's mock model, in its own process: prints its URL on the first line, then answers every
 * call with `reply <tag>`, where the tag is the last `TAG-…` word of the last user message
 * (`SOAK_MODEL_TOOL=1`: a `soak_noop` tool call first, then the text). Stops when stdin ends.
 *
 * @module
 */
import process from "node:process";
import { MockLlmServer, type MockRequest } from "../src/testing/mod.ts";

const withTool = process.env.SOAK_MODEL_TOOL === "1";

function lastUserText(request: MockRequest): string {
  const messages = (request.body as { messages?: { role?: string; content?: unknown }[] })
    .messages ?? [];
  const user = messages.findLast((message) => message.role === "user");
  const content = user?.content;
  return typeof content === "string" ? content : JSON.stringify(content ?? "");
}

const server = await MockLlmServer.start({
  script: (request: MockRequest) => {
    const messages = (request.body as { messages?: { role?: string }[] }).messages ?? [];
    if (withTool && messages.at(-1)?.role !== "tool") {
      return {
        toolCalls: [{ name: "soak_noop", arguments: { value: 1 } }],
        usage: { promptTokens: 10, completionTokens: 2 },
      };
    }
    const tag = lastUserText(request).match(/TAG-[\w-]+/g)?.at(-1) ?? "TAG-none";
    return { text: ["reply ", tag], usage: { promptTokens: 10, completionTokens: 2 } };
  },
});
console.log(server.url);
process.stdin.resume();
process.stdin.on("end", () => void server.close().then(() => process.exit(0)));
process.once("SIGTERM", () => void server.close().then(() => process.exit(0)));
