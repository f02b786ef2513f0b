/**
 * The main job: `bub chat` in one file — a streaming chat with the agent in the terminal.
 *
 *   deno run -A examples/chat.ts           # uses BUB_MODEL / BUB_API_KEY / BUB_API_BASE (or config.yml)
 *   deno run -A examples/chat.ts --demo    # offline: starts the mock model on 127.0.0.1 first
 *
 * Also runs on Node 24 (`node examples/chat.ts --demo`) and Bun. Type `,help` for commands and
 * `,quit` to leave.
 */
import process from "node:process";
import { main } from "../src/cli/main.ts";
import { demoResponder, MockLlmServer } from "../src/testing/mod.ts";

const args = process.argv.slice(2);
const demo = args.includes("--demo");
const rest = args.filter((arg) => arg !== "--demo");

if (demo) {
  await using server = await MockLlmServer.start({ script: demoResponder });
  process.env.BUB_MODEL = "custom:demo";
  process.env.BUB_API_BASE = server.url;
  process.env.BUB_API_KEY ??= "demo-key";
  process.exitCode = await main(["chat", ...rest]);
} else {
  process.exitCode = await main(["chat", ...rest]);
}
