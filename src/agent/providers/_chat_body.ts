/**
 * The JSON body of a streamed chat-completions request, built directly: byte for byte what the
 * AI SDK's OpenAI chat and OpenAI-compatible providers send for the same request (after Bub's
 * body fields are merged in), without the round trip through the SDK's prompt format. Each tool's
 * JSON is serialised once and reused while its schema object lives; the tools array and the text
 * around the messages and tools are reused while they stay the same (the calls of one runner).
 *
 * User media parts (image_url, input_audio, video_url, file) are sent unchanged, as Python Bub
 * sends them, where the SDK would refuse or rewrite some. Requests this builder does not cover
 * (OpenAI reasoning models, schemas the OpenAI provider rewrites) are reported by
 * {@link chatBodyCovers} and go through the SDK instead, which forwards media parts unchanged too.
 *
 * @module
 */
import type { ChatMessage, ModelRequest } from "../model_client.ts";
import type { ModelId } from "./provider_presets.ts";
import { bodyExtras } from "./_model_stream.ts";
import { mergeBody } from "./_request_body.ts";
import { type MessagesJson, messagesJson } from "./_chat_messages.ts";

import { type ChatProtocol, messageJson, toolsJson } from "./_chat_json.ts";
import { runtimeKey } from "../../_internal/runtime.ts";
export type { ChatProtocol };

const TOOLS_MARKER = "\u0000bub-tools\u0000";
const TOOLS_MARKER_JSON = `"tools":${JSON.stringify(TOOLS_MARKER)}`;
const MESSAGES_MARKER = "\u0000bub-messages\u0000";
const MESSAGES_MARKER_JSON = `"messages":${JSON.stringify(MESSAGES_MARKER)}`;
// OpenAI models the SDK treats as reasoning models (developer role, max_completion_tokens).
const OPENAI_REASONING = /^(?:o\d|gpt-(?:[5-9]|\d\d))/;

/** Text, or parts that are each an object with a string `type` (media parts go unchanged). */
function partsCovered(content: unknown): boolean {
  if (content == null || typeof content === "string") return true;
  if (!Array.isArray(content)) return false;
  for (const part of content) {
    if (
      part === null || typeof part !== "object" ||
      typeof (part as { type?: unknown }).type !== "string"
    ) {
      return false;
    }
  }
  return true;
}

/**
 * Whether the direct body covers `message`: a known role; user content as text or parts (text
 * parts as the SDK sends them, media parts unchanged, see `media_support.ts`).
 */
function messageCovered(message: Record<string, unknown>): boolean {
  switch (message.role) {
    case "user":
      return partsCovered(message.content);
    case "system":
    case "developer":
    case "assistant":
    case "tool":
      return true;
    default:
      return false;
  }
}

/**
 * Whether the direct body may be exactly the SDK's for this request: (OpenAI chat) a model the SDK
 * does not treat as a reasoning model. Its messages (known roles, user content of parts) are
 * checked while the body is built: {@link chatRequestBody} and {@link chatRequestBytes} answer
 * null for a message they do not cover (a long session's kept messages are checked once each,
 * not on every call).
 */
export function chatBodyCovers(
  protocol: ChatProtocol,
  id: ModelId,
  _request: ModelRequest,
): boolean {
  return !(protocol === "openai-chat" && OPENAI_REASONING.test(id.model));
}

/**
 * A body in three parts: text, the cached JSON of a session's history (bytes; text on Bun, see
 * {@link TEXT_BODY}; or null), text.
 */
interface BodyParts {
  head: string;
  kept: Uint8Array | string | null;
  tail: string;
}

/**
 * The body's text around its messages and tools, cut at the two markers: `pre` + messages +
 * `mid` + tools + `post` (no tools: `pre` + messages + `mid`). Null when the markers are not in
 * that order (a body field replaced one): such bodies are spliced the long way.
 */
interface BodyTemplate {
  pre: string;
  mid: string;
  post: string;
}

// The last body template per key (a runner's calls share model, settings and tool presence).
let lastTemplate: { key: string; template: BodyTemplate | null } | null = null;

function templateKey(
  protocol: ChatProtocol,
  id: ModelId,
  request: ModelRequest,
  hasTools: boolean,
): string | null {
  const args = request.completionArgs;
  let argsKey = "";
  if (args != null) {
    try {
      // The keys' order matters to the merge even where a value serialises to nothing.
      argsKey = `${JSON.stringify(Object.keys(args))}${JSON.stringify(args)}`;
    } catch {
      return null;
    }
  }
  return JSON.stringify([
    protocol,
    id.model,
    request.maxTokens ?? null,
    hasTools,
    request.reasoningEffort ?? null,
    argsKey,
  ]);
}

function bodyTemplate(text: string, hasTools: boolean): BodyTemplate | null {
  const messagesAt = text.indexOf(MESSAGES_MARKER_JSON);
  if (messagesAt < 0) return null;
  const afterMessages = messagesAt + MESSAGES_MARKER_JSON.length;
  const pre = `${text.slice(0, messagesAt)}"messages":`;
  if (!hasTools) return { pre, mid: text.slice(afterMessages), post: "" };
  const toolsAt = text.lastIndexOf(TOOLS_MARKER_JSON);
  if (toolsAt < afterMessages) return null;
  return {
    pre,
    mid: `${text.slice(afterMessages, toolsAt)}"tools":`,
    post: text.slice(toolsAt + TOOLS_MARKER_JSON.length),
  };
}

function bodyText(
  protocol: ChatProtocol,
  id: ModelId,
  request: ModelRequest,
  hasTools: boolean,
): string {
  const body: Record<string, unknown> = { model: id.model };
  if (request.maxTokens != null) body.max_tokens = request.maxTokens;
  body.messages = MESSAGES_MARKER;
  if (hasTools) body.tools = TOOLS_MARKER;
  body.stream = true;
  body.stream_options = { include_usage: true };
  return JSON.stringify(mergeBody(body, bodyExtras(protocol, request).extras));
}

function bodyParts(protocol: ChatProtocol, id: ModelId, request: ModelRequest): BodyParts | null {
  const tools = request.tools && request.tools.length > 0
    ? toolsJson(request.tools, protocol)
    : undefined;
  if (tools === null) return null;
  const hasTools = tools !== undefined;
  const key = templateKey(protocol, id, request, hasTools);
  let template: BodyTemplate | null;
  if (key !== null && lastTemplate !== null && lastTemplate.key === key) {
    template = lastTemplate.template;
  } else {
    template = bodyTemplate(bodyText(protocol, id, request, hasTools), hasTools);
    if (key !== null) lastTemplate = { key, template };
  }
  if (template === null || (hasTools && tools.includes(MESSAGES_MARKER_JSON))) {
    return splicedParts(protocol, id, request, tools);
  }
  const messages = requestMessagesJson(protocol, request);
  if (messages === null) return null;
  return {
    head: `${template.pre}${messages.open}`,
    kept: messages.kept,
    tail: hasTools
      ? `${messages.close}${template.mid}${tools}${template.post}`
      : `${messages.close}${template.mid}`,
  };
}

/** The request's messages as JSON (see `messagesJson`), or null when one is not covered. */
function requestMessagesJson(protocol: ChatProtocol, request: ModelRequest): MessagesJson | null {
  return messagesJson(
    protocol,
    request.messages as unknown as readonly Record<string, unknown>[],
    (message) => messageJson(protocol, message as unknown as ChatMessage),
    messageCovered,
    TEXT_BODY,
    request,
  );
}

/** {@link bodyParts} the long way: the body's text built and both markers replaced in it. */
function splicedParts(
  protocol: ChatProtocol,
  id: ModelId,
  request: ModelRequest,
  tools: string | undefined,
): BodyParts | null {
  // The messages and tools are spliced in as JSON text (the same text `JSON.stringify` gives).
  let text = bodyText(protocol, id, request, tools !== undefined);
  if (tools !== undefined) {
    const at = text.lastIndexOf(TOOLS_MARKER_JSON);
    if (at >= 0) {
      text = `${text.slice(0, at)}"tools":${tools}${text.slice(at + TOOLS_MARKER_JSON.length)}`;
    }
  }
  const at = text.indexOf(MESSAGES_MARKER_JSON);
  if (at < 0) {
    // Replaced by a body field.
    const messages = request.messages as unknown as readonly Record<string, unknown>[];
    return messages.every(messageCovered) ? { head: text, kept: null, tail: "" } : null;
  }
  const messages = requestMessagesJson(protocol, request);
  if (messages === null) return null;
  return {
    head: `${text.slice(0, at)}"messages":${messages.open}`,
    kept: messages.kept,
    tail: `${messages.close}${text.slice(at + MESSAGES_MARKER_JSON.length)}`,
  };
}

const DECODER = new TextDecoder();
const ENCODER = new TextEncoder();
/**
 * Bun sends a text body cheaper than bytes (a 300 KB body: ~0.6 ms per call less; Node and Deno
 * the other way round or even): there the body is the text, its history kept as text too (a
 * string joined from the messages' JSON: no decode per turn, and one byte a character, which Bun
 * sends without converting it; a decoded history cost Bun ~0.3 ms more per call at 1000 turns).
 */
const TEXT_BODY = runtimeKey() === "bun";
// The last kept run decoded (the calls of one turn send the same history).
let lastDecoded: { kept: Uint8Array; text: string } | null = null;

function keptText(kept: Uint8Array | string): string {
  if (typeof kept === "string") return kept;
  const last = lastDecoded;
  if (
    last !== null && last.kept.buffer === kept.buffer && last.kept.byteOffset === kept.byteOffset &&
    last.kept.length === kept.length
  ) {
    return last.text;
  }
  const text = DECODER.decode(kept);
  lastDecoded = { kept, text };
  return text;
}

/**
 * The request body text, or null when a tool schema needs the SDK's rewriting or a message is one
 * the direct body does not cover (see {@link chatBodyCovers}). Call only for requests
 * {@link chatBodyCovers} accepts.
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
    : `${parts.head}${keptText(parts.kept)}${parts.tail}`;
}

/**
 * {@link chatRequestBody} as the runtime's `fetch` takes it best: its UTF-8 bytes, built without a
 * string of the whole body, when a long session's history is copied from its cached bytes; else
 * the text itself (the runtime encodes it). On Bun always the text (its history cached as text).
 */
export function chatRequestBytes(
  protocol: ChatProtocol,
  id: ModelId,
  request: ModelRequest,
): Uint8Array<ArrayBuffer> | string | null {
  const parts = bodyParts(protocol, id, request);
  if (parts === null) return null;
  if (parts.kept === null) return parts.head + parts.tail;
  if (typeof parts.kept === "string") return `${parts.head}${parts.kept}${parts.tail}`;
  const head = ENCODER.encode(parts.head);
  const tail = ENCODER.encode(parts.tail);
  const out = new Uint8Array(head.length + parts.kept.length + tail.length);
  out.set(head);
  out.set(parts.kept, head.length);
  out.set(tail, head.length + parts.kept.length);
  return out;
}
