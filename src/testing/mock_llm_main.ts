/**
 * `deno task mock-llm`: starts a {@link MockLlmServer} with a small demo script and prints its
 * URL; stops on Ctrl-C.
 *
 * @module
 */
import process from "node:process";
import { MockLlmServer, type MockReply, type MockRequest } from "./mock_llm_server.ts";

function lastUserText(request: MockRequest): string {
  const body = request.body as { messages?: unknown; input?: unknown } | null;
  const messages = Array.isArray(body?.messages)
    ? body.messages
    : Array.isArray(body?.input)
    ? body.input
    : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as { role?: unknown; content?: unknown };
    if (message?.role !== "user") continue;
    if (typeof message.content === "string") return message.content;
    if (Array.isArray(message.content)) {
      return message.content
        .map((part: { text?: unknown }) => (typeof part?.text === "string" ? part.text : ""))
        .join("");
    }
  }
  return "";
}

/**
 * The demo script: echoes the last user message back, streamed word by word, with usage.
 *
 * @example
 * ```ts
 * import { demoResponder, MockLlmServer } from "@bub/core/testing";
 * await using server = await MockLlmServer.start({ script: demoResponder });
 * ```
 */
export function demoResponder(request: MockRequest): MockReply {
  const text = `You said: ${lastUserText(request) || "(nothing)"}`;
  return { text: text.split(/(?<= )/), delayMs: 30 };
}

/** Starts the demo server and waits for SIGINT/SIGTERM. */
export async function main(): Promise<void> {
  const server = await MockLlmServer.start({ script: demoResponder });
  console.log(`Mock LLM listening on ${server.url}`);
  console.log(`Try: BUB_MODEL=custom:demo BUB_API_BASE=${server.url}`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  await server.close();
}

if (import.meta.main) await main();
