/**
 * The demo script for `MockLlmServer`: a tiny stand-in for a model that echoes, streams
 * Markdown and calls the `bash` tool. Importing this module does nothing.
 *
 * @module
 */
import type { MockReply, MockRequest } from "./mock_llm_server.ts";

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

function lastMessage(request: MockRequest): { role?: unknown; content?: unknown } | null {
  const body = request.body as { messages?: unknown; input?: unknown } | null;
  const messages = Array.isArray(body?.messages)
    ? body.messages
    : Array.isArray(body?.input)
    ? body.input
    : [];
  return (messages.at(-1) as { role?: unknown; content?: unknown } | undefined) ?? null;
}

/** The user's own words: the text after the `---Date: ...---` line the builtin prompt adds. */
function userWords(text: string): string {
  const marker = text.lastIndexOf("---\n");
  return (marker >= 0 && /---Date: /.test(text) ? text.slice(marker + 4) : text).trim();
}

/**
 * The demo script, a tiny stand-in for a model: "run <command>" (or "list files") calls the
 * `bash` tool and then reports its output; anything else is echoed back as streamed Markdown
 * with usage.
 *
 * @example
 * ```ts
 * import { demoResponder, MockLlmServer } from "@bub/core/testing";
 * await using server = await MockLlmServer.start({ script: demoResponder });
 * ```
 */
export function demoResponder(request: MockRequest): MockReply {
  const usage = { promptTokens: 42, completionTokens: 12 };
  const last = lastMessage(request);
  if (
    last?.role === "tool" || (last as { type?: unknown } | null)?.type === "function_call_output"
  ) {
    const output = String(last?.content ?? (last as { output?: unknown }).output ?? "");
    return {
      text: `The command printed:\n\n\`\`\`\n${output}\n\`\`\`\n`.split(/(?<=\n)/),
      usage,
      delayMs: 20,
    };
  }
  const words = userWords(lastUserText(request));
  const run = /^run\s+(.+)$/i.exec(words)?.[1] ?? (/^list files\b/i.test(words) ? "ls" : null);
  if (run) {
    return {
      text: `Running \`${run}\`.\n`,
      toolCalls: [{ name: "bash", arguments: { command: run } }],
      usage,
    };
  }
  const text = `**You said:** ${words || "(nothing)"}\n\nThis is the mock model. Try:\n\n` +
    "- `run echo hello` to see a tool call\n- `,help` for comma commands\n- `,quit` to leave\n";
  return { text: text.split(/(?<= )/), usage, delayMs: 15 };
}
