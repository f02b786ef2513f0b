/**
 * `deno task mock-llm`: starts a MockLlmServer with the demo script and prints its URL; stops
 * on Ctrl-C. This command-line entry is not reachable from any export of the package.
 *
 * @module
 */
import process from "node:process";
import { demoResponder } from "../src/testing/demo_responder.ts";
import { MockLlmServer } from "../src/testing/mock_llm_server.ts";

const server = await MockLlmServer.start({ script: demoResponder });
console.log(`Mock LLM listening on ${server.url}`);
console.log(`Try: BUB_MODEL=custom:demo BUB_API_BASE=${server.url}`);
await new Promise<void>((resolve) => {
  process.once("SIGINT", () => resolve());
  process.once("SIGTERM", () => resolve());
});
await server.close();
