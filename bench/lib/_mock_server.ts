/**
 * A MockLlmServer for benchmarks, in its own process: prints its URL on the first line, then
 * answers every call with a short text (`BENCH_TOOL=1`: a bash tool call first, then text).
 */
import process from "node:process";
import { MockLlmServer, type MockRequest } from "../../src/testing/mod.ts";

const withTool = process.env.BENCH_TOOL === "1";
const server = await MockLlmServer.start({
  script: (request: MockRequest) => {
    const messages = (request.body as { messages?: { role?: string }[] }).messages ?? [];
    if (withTool && messages.at(-1)?.role !== "tool") {
      return {
        toolCalls: [{ name: "bench_noop", arguments: { value: 1 } }],
        usage: { promptTokens: 10, completionTokens: 2 },
      };
    }
    return {
      text: ["Hello ", "from ", "the ", "bench."],
      usage: { promptTokens: 10, completionTokens: 4 },
    };
  },
});
console.log(server.url);
process.stdin.resume();
process.stdin.on("end", () => void server.close().then(() => process.exit(0)));
process.once("SIGTERM", () => void server.close().then(() => process.exit(0)));
