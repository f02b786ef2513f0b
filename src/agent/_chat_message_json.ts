/**
 * One message of a chat-completions body as JSON text: the message converted the way the AI
 * SDK's OpenAI chat and OpenAI-compatible providers convert it (text content, tool calls with
 * their arguments re-serialised as each provider does), the system prompt serialised once while
 * it stays the same.
 *
 * @module
 */
import type { ChatMessage, ChatToolCall } from "./model_client.ts";
import { contentText, parseArguments } from "./_prompt.ts";

/** The two chat-completions protocols. */
export type ChatProtocol = "openai-chat" | "openai-compatible";

function isPlainObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A tool call's arguments as each provider re-serialises them. */
function callArguments(protocol: ChatProtocol, raw: string): string {
  const input = parseArguments(raw);
  if (typeof input !== "string") {
    return JSON.stringify(protocol === "openai-chat" && !isPlainObject(input) ? {} : input);
  }
  try {
    const parsed = JSON.parse(input);
    return protocol === "openai-chat" && !isPlainObject(parsed) ? "{}" : input;
  } catch {
    return protocol === "openai-chat" ? "{}" : JSON.stringify(input);
  }
}

function toolCalls(protocol: ChatProtocol, calls: readonly ChatToolCall[]): unknown[] {
  return calls.map((call) => ({
    id: call.id,
    type: "function",
    function: {
      name: call.function.name,
      arguments: callArguments(protocol, call.function.arguments ?? ""),
    },
  }));
}

function userMessage(content: ChatMessage["content"]): Record<string, unknown> {
  if (content == null) return { role: "user", content: "" };
  if (typeof content === "string") return { role: "user", content };
  const parts = content.map((part) => ({
    type: "text",
    text: String((part as { text?: unknown }).text ?? ""),
  }));
  if (parts.length === 1) return { role: "user", content: parts[0]!.text };
  return { role: "user", content: parts };
}

function convertMessage(protocol: ChatProtocol, message: ChatMessage): Record<string, unknown> {
  switch (message.role) {
    case "system":
    case "developer":
      return { role: "system", content: contentText(message.content) };
    case "user":
      return userMessage(message.content);
    case "assistant": {
      const text = contentText(message.content);
      const calls = message.tool_calls && message.tool_calls.length > 0
        ? toolCalls(protocol, message.tool_calls)
        : undefined;
      const out: Record<string, unknown> = {
        role: "assistant",
        content: calls ? text || null : text,
      };
      if (protocol === "openai-compatible" && message.reasoning_content) {
        out.reasoning_content = message.reasoning_content;
      }
      if (calls) out.tool_calls = calls;
      return out;
    }
    case "tool":
      return {
        role: "tool",
        tool_call_id: message.tool_call_id,
        content: contentText(message.content),
      };
  }
}

// The last system prompt serialised as a message (it is sent at every call of a turn).
let lastSystem: { content: string; json: string } | null = null;

/** One message's JSON as the body sends it. */
export function messageJson(protocol: ChatProtocol, message: ChatMessage): string {
  if (message.role === "system" && typeof message.content === "string") {
    const content = message.content;
    if (lastSystem !== null && lastSystem.content === content) return lastSystem.json;
    const json = JSON.stringify(convertMessage(protocol, message));
    lastSystem = { content, json };
    return json;
  }
  return JSON.stringify(convertMessage(protocol, message));
}
