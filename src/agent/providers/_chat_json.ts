/**
 * The parts of a chat-completions body as JSON text, as the AI SDK's OpenAI chat and
 * OpenAI-compatible providers send them (see `_chat_body.ts`).
 *
 * One message ({@link messageJson}): the message converted the way the AI
 * SDK's OpenAI chat and OpenAI-compatible providers convert it (text content, tool calls with
 * their arguments re-serialised as each provider does), the system prompt serialised once while
 * it stays the same.
 *
 * The `tools` array ({@link toolsJson}): each tool's JSON serialised once and reused while its schema object lives,
 * and the array's text reused while its tools stay the same (by the list's identity for a shared,
 * frozen list, see `toolListParts`; else by comparing its tools with the last list's); a schema is
 * normalised as the OpenAI provider does ({@link openaiToolSchema}: string-typed `propertyNames`
 * dropped); schemas it would rewrite otherwise (a `pattern`, singleton `allOf` references) are
 * left to the SDK.
 *
 * @module
 */
import type { ChatMessage, ChatTool, ChatToolCall } from "../model_client.ts";
import { contentText, parseArguments } from "./_prompt.ts";
import { isSharedToolList } from "../_tool_calls.ts";

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

/**
 * A user message: text parts as the SDK sends them (one text part alone as a string), every other
 * part (image_url, input_audio, video_url, file, …) unchanged, as Python Bub forwards them.
 */
function userMessage(content: ChatMessage["content"]): Record<string, unknown> {
  if (content == null) return { role: "user", content: "" };
  if (typeof content === "string") return { role: "user", content };
  const parts = content.map((part) =>
    (part as { type?: unknown }).type === "text"
      ? { type: "text", text: String((part as { text?: unknown }).text ?? "") }
      : part
  );
  if (parts.length === 1 && parts[0]!.type === "text") {
    return { role: "user", content: parts[0]!.text };
  }
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

// The last tools array built per protocol: its parts (the cached entries) and its text.
const lastTools = new Map<ChatProtocol, { parts: (string | null)[]; json: string | null }>();

// The JSON of each shared tool list, per protocol.
const sharedOpenai = new WeakMap<readonly ChatTool[], string | null>();
const sharedCompatible = new WeakMap<readonly ChatTool[], string | null>();

/** The tools' JSON array, or null when the OpenAI provider would rewrite a schema. */
export function toolsJson(tools: readonly ChatTool[], protocol: ChatProtocol): string | null {
  if (!isSharedToolList(tools)) return listJson(tools, protocol);
  const byList = protocol === "openai-chat" ? sharedOpenai : sharedCompatible;
  let json = byList.get(tools);
  if (json === undefined) byList.set(tools, json = listJson(tools, protocol));
  return json;
}

function listJson(tools: readonly ChatTool[], protocol: ChatProtocol): string | null {
  const parts: (string | null)[] = new Array(tools.length);
  for (let i = 0; i < tools.length; i++) {
    const entry = toolJson(tools[i]!);
    parts[i] = protocol === "openai-chat" ? entry.openai : entry.json;
  }
  const last = lastTools.get(protocol);
  if (
    last !== undefined && last.parts.length === parts.length &&
    last.parts.every((part, i) => part === parts[i])
  ) {
    return last.json;
  }
  let out: string | null = "[";
  for (let i = 0; i < parts.length; i++) {
    const json = parts[i]!;
    if (json === null) {
      out = null;
      break;
    }
    out += i === 0 ? json : `,${json}`;
  }
  const json = out === null ? null : `${out}]`;
  lastTools.set(protocol, { parts, json });
  return json;
}

const RECORDS = ["properties", "patternProperties", "definitions", "$defs"];
const SINGLE = ["additionalProperties", "additionalItems", "contains", "not", "if", "then", "else"];
const LISTS = ["allOf", "anyOf", "oneOf"];

/** Thrown inside the walk for a schema the direct client leaves to the SDK. */
const UNSUPPORTED = Symbol("unsupported");

type Json = Record<string, unknown>;

function definition(value: unknown): unknown {
  if (typeof value === "boolean") return value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw UNSUPPORTED;
  return schema(value as Json);
}

function record(value: unknown): Json {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw UNSUPPORTED;
  const out: Json = {};
  for (const [key, item] of Object.entries(value)) out[key] = definition(item);
  return out;
}

function schema(input: Json): Json {
  if ("pattern" in input && input.pattern != null) throw UNSUPPORTED;
  if ("$ref" in input || "allOf" in input) throw UNSUPPORTED;
  const names = input.propertyNames;
  if (names != null) {
    if (typeof names === "boolean") throw UNSUPPORTED;
    if ((names as Json).type != null && (names as Json).type !== "string") throw UNSUPPORTED;
  }
  const out: Json = { ...input };
  delete out.propertyNames;
  for (const key of RECORDS) if (out[key] != null) out[key] = record(out[key]);
  for (const key of SINGLE) if (out[key] != null) out[key] = definition(out[key]);
  if (out.items != null) {
    out.items = Array.isArray(out.items) ? out.items.map(definition) : definition(out.items);
  }
  for (const key of LISTS) {
    if (out[key] == null) continue;
    if (!Array.isArray(out[key])) throw UNSUPPORTED;
    out[key] = (out[key] as unknown[]).map(definition);
  }
  if (out.dependencies != null) {
    const deps: Json = {};
    for (const [key, item] of Object.entries(out.dependencies as Json)) {
      deps[key] = Array.isArray(item) ? item : definition(item);
    }
    out.dependencies = deps;
  }
  return out;
}

/**
 * `parameters` as the OpenAI provider sends it, or null when the provider would rewrite it in a
 * way this port does not cover (the SDK path then builds the request).
 */
export function openaiToolSchema(parameters: Json): Json | null {
  try {
    return schema(parameters);
  } catch (error) {
    if (error === UNSUPPORTED) return null;
    throw error;
  }
}
