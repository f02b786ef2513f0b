/**
 * The JSON body of a streamed chat-completions request, built directly: byte for byte what the
 * AI SDK's OpenAI chat and OpenAI-compatible providers send for the same request (after Bub's
 * body fields are merged in), without the round trip through the SDK's prompt format. Each tool's
 * JSON is serialised once and reused while its schema object lives.
 *
 * Requests this builder does not cover exactly (non-text user parts, OpenAI reasoning models,
 * schemas the OpenAI provider rewrites) are reported by {@link chatBodyCovers} and go through
 * the SDK instead.
 *
 * @module
 */
import type { ChatMessage, ChatTool, ChatToolCall, ModelRequest } from "./model_client.ts";
import type { ModelId } from "./provider_presets.ts";
import { contentText } from "./_prompt.ts";
import { bodyExtras } from "./_model_stream.ts";
import { mergeBody } from "./_request_body.ts";
import { openaiToolSchema } from "./_openai_schema.ts";
import { messagesJson } from "./_chat_messages.ts";

/** The two chat-completions protocols. */
export type ChatProtocol = "openai-chat" | "openai-compatible";

/** One tool's serialised forms: as sent by OpenAI-compatible providers and by OpenAI chat. */
interface ToolJson {
  name: string;
  description: string | undefined;
  json: string;
  /** The OpenAI provider's form (normalised schema); null: only the SDK reproduces it. */
  openai: string | null;
}

const DEFAULT_PARAMETERS = Object.freeze({ type: "object", properties: {} });
const toolCache = new WeakMap<object, ToolJson>();
// Keywords the OpenAI provider may rewrite: schemas naming none are sent as they are.
const OPENAI_REWRITES = /"(?:propertyNames|pattern|allOf|\$ref)":/;
const TOOLS_MARKER = "\u0000bub-tools\u0000";
const TOOLS_MARKER_JSON = `"tools":${JSON.stringify(TOOLS_MARKER)}`;
const MESSAGES_MARKER = "\u0000bub-messages\u0000";
const MESSAGES_MARKER_JSON = `"messages":${JSON.stringify(MESSAGES_MARKER)}`;
// OpenAI models the SDK treats as reasoning models (developer role, max_completion_tokens).
const OPENAI_REASONING = /^(?:o\d|gpt-(?:[5-9]|\d\d))/;

function toolJson(tool: ChatTool): ToolJson {
  const fn = tool.function;
  const parameters = fn.parameters ?? DEFAULT_PARAMETERS;
  const cached = toolCache.get(parameters);
  if (cached && cached.name === fn.name && cached.description === fn.description) return cached;
  const schema = JSON.stringify(parameters);
  const head = `{"type":"function","function":${
    JSON.stringify({ name: fn.name, description: fn.description }).slice(0, -1)
  },"parameters":`;
  const json = `${head}${schema}}}`;
  let openai: string | null = json;
  if (OPENAI_REWRITES.test(schema)) {
    const normalized = openaiToolSchema(parameters as Record<string, unknown>);
    openai = normalized === null ? null : `${head}${JSON.stringify(normalized)}}}`;
  }
  const entry: ToolJson = { name: fn.name, description: fn.description, json, openai };
  toolCache.set(parameters, entry);
  return entry;
}

/** The tools' JSON array, or null when the OpenAI provider would rewrite a schema. */
function toolsJson(tools: readonly ChatTool[], protocol: ChatProtocol): string | null {
  let out = "[";
  for (let i = 0; i < tools.length; i++) {
    const entry = toolJson(tools[i]!);
    const json = protocol === "openai-chat" ? entry.openai : entry.json;
    if (json === null) return null;
    out += i === 0 ? json : `,${json}`;
  }
  return out + "]";
}

function textOnly(content: unknown): boolean {
  if (content == null || typeof content === "string") return true;
  if (!Array.isArray(content)) return false;
  for (const part of content) {
    if (part === null || typeof part !== "object" || (part as { type?: unknown }).type !== "text") {
      return false;
    }
  }
  return true;
}

/**
 * Whether the direct body is exactly the SDK's for this request: known roles, text-only user
 * content, and (OpenAI chat) a model the SDK does not treat as a reasoning model.
 */
export function chatBodyCovers(
  protocol: ChatProtocol,
  id: ModelId,
  request: ModelRequest,
): boolean {
  if (protocol === "openai-chat" && OPENAI_REASONING.test(id.model)) return false;
  for (const message of request.messages) {
    switch (message.role) {
      case "user":
        if (!textOnly(message.content)) return false;
        break;
      case "system":
      case "developer":
      case "assistant":
      case "tool":
        break;
      default:
        return false;
    }
  }
  return true;
}

function parseArguments(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

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

/** A body in three parts: text, the cached bytes of a session's history (or null), text. */
interface BodyParts {
  head: string;
  kept: Uint8Array | null;
  tail: string;
}

function bodyParts(protocol: ChatProtocol, id: ModelId, request: ModelRequest): BodyParts | null {
  const tools = request.tools && request.tools.length > 0
    ? toolsJson(request.tools, protocol)
    : undefined;
  if (tools === null) return null;
  const body: Record<string, unknown> = { model: id.model };
  if (request.maxTokens != null) body.max_tokens = request.maxTokens;
  body.messages = MESSAGES_MARKER;
  if (tools !== undefined) body.tools = TOOLS_MARKER;
  body.stream = true;
  body.stream_options = { include_usage: true };
  // The messages and tools are spliced in as JSON text (the same text `JSON.stringify` gives).
  let text = JSON.stringify(mergeBody(body, bodyExtras(protocol, request).extras));
  if (tools !== undefined) {
    const at = text.lastIndexOf(TOOLS_MARKER_JSON);
    if (at >= 0) {
      text = `${text.slice(0, at)}"tools":${tools}${text.slice(at + TOOLS_MARKER_JSON.length)}`;
    }
  }
  const at = text.indexOf(MESSAGES_MARKER_JSON);
  if (at < 0) return { head: text, kept: null, tail: "" }; // Replaced by a body field.
  const messages = messagesJson(
    protocol,
    request.messages as unknown as readonly Record<string, unknown>[],
    (message) => JSON.stringify(convertMessage(protocol, message as unknown as ChatMessage)),
  );
  return {
    head: `${text.slice(0, at)}"messages":${messages.open}`,
    kept: messages.kept,
    tail: `${messages.close}${text.slice(at + MESSAGES_MARKER_JSON.length)}`,
  };
}

const DECODER = new TextDecoder();
const ENCODER = new TextEncoder();

/**
 * The request body text, or null when a tool schema needs the SDK's rewriting. Call only for
 * requests {@link chatBodyCovers} accepts.
 */
export function chatRequestBody(
  protocol: ChatProtocol,
  id: ModelId,
  request: ModelRequest,
): string | null {
  const parts = bodyParts(protocol, id, request);
  if (parts === null) return null;
  return parts.kept === null
    ? parts.head + parts.tail
    : `${parts.head}${DECODER.decode(parts.kept)}${parts.tail}`;
}

/**
 * {@link chatRequestBody} as the runtime's `fetch` takes it best: its UTF-8 bytes, built without a
 * string of the whole body, when a long session's history is copied from its cached bytes; else
 * the text itself (the runtime encodes it).
 */
export function chatRequestBytes(
  protocol: ChatProtocol,
  id: ModelId,
  request: ModelRequest,
): Uint8Array<ArrayBuffer> | string | null {
  const parts = bodyParts(protocol, id, request);
  if (parts === null) return null;
  if (parts.kept === null) return parts.head + parts.tail;
  const head = ENCODER.encode(parts.head);
  const tail = ENCODER.encode(parts.tail);
  const out = new Uint8Array(head.length + parts.kept.length + tail.length);
  out.set(head);
  out.set(parts.kept, head.length);
  out.set(tail, head.length + parts.kept.length);
  return out;
}
