/**
 * The direct client for the chat-completions protocol (OpenAI chat and every OpenAI-compatible
 * preset): one `fetch`, one streaming SSE decoder, tool-call deltas assembled in place, no
 * per-chunk schema validation. It sends the same bytes as the AI SDK providers and reports the
 * same events and errors; `ProviderModelClient` uses it for the requests it covers exactly.
 *
 * @module
 */
import { BubError, type ErrorKind } from "../../kernel/errors.ts";
import type { ModelEvent, ModelStreamOptions } from "../model_client.ts";
import type { ModelId, ProviderPreset } from "./provider_presets.ts";
import type { FetchLike } from "./_request_body.ts";
import type { ChatProtocol } from "./_chat_body.ts";
import { ChatRead } from "./_chat_read.ts";
import { providerError } from "./_model_stream.ts";
import { answerLimit } from "../_answer_limit.ts";

/** Where and how one model's requests go. */
export interface ChatCompletionsTarget {
  /** Which provider's request and reporting rules apply. */
  protocol: ChatProtocol;
  /** The model. */
  id: ModelId;
  /** The full `/chat/completions` URL. */
  url: string;
  /** Request headers (authorization, content type, client headers). */
  headers: Record<string, string>;
  /** The `fetch` to call. */
  fetch: FetchLike;
}

function envSetting(name: string): string | undefined {
  try {
    const value = (globalThis as { process?: { env?: Record<string, string | undefined> } })
      .process?.env?.[name];
    return value === "" ? undefined : value;
  } catch {
    return undefined; // No permission to read the environment.
  }
}

/** What {@link resolveChatTarget} needs: the model, its preset and the provider settings. */
export interface ChatTargetInit {
  /** The model. */
  id: ModelId;
  /** The provider's preset. */
  preset: ProviderPreset;
  /** The API key setting for this provider, or null. */
  apiKey: string | null;
  /** The API base setting for this provider, or null. */
  apiBase: string | null;
  /** Client headers. */
  headers: Record<string, string>;
  /** Whether `client_args` holds constructor settings only the SDK understands. */
  sdkOnlyArgs: boolean;
  /** The `fetch` to call. */
  fetch: FetchLike;
}

/**
 * The direct target of a model, or null when the AI SDK provider must handle it: another
 * protocol, constructor settings only the SDK knows, `OPENAI_BASE_URL` (read by the SDK), or a
 * missing key or base that the SDK reports with its own error.
 */
export function resolveChatTarget(init: ChatTargetInit): ChatCompletionsTarget | null {
  const { id, preset } = init;
  const protocol = preset.protocol;
  if (protocol !== "openai-chat" && protocol !== "openai-compatible") return null;
  if (init.sdkOnlyArgs) return null;
  let apiKey = init.apiKey;
  let base = init.apiBase ?? preset.baseURL;
  if (protocol === "openai-chat") {
    apiKey ??= envSetting("OPENAI_API_KEY") ?? null;
    if (apiKey === null) return null;
    if (base === null) {
      if (envSetting("OPENAI_BASE_URL") !== undefined) return null;
      base = "https://api.openai.com/v1";
    }
  }
  if (!base) return null;
  let url = `${base.replace(/\/$/, "")}/chat/completions`;
  if (protocol === "openai-compatible") {
    if (!URL.canParse(url)) return null;
    url = new URL(url).toString();
  }
  return {
    protocol,
    id,
    url,
    headers: {
      ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
      ...init.headers,
      "content-type": "application/json",
    },
    fetch: init.fetch,
  };
}

function errorMessage(text: string, fallback: string): string {
  if (text.trim() === "") return fallback;
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof parsed?.error?.message === "string") return parsed.error.message;
  } catch {
    // Not JSON: the status text, as the SDK reports it.
  }
  return fallback;
}

/** The `BubError` of an HTTP error status (`temporary` for 429 and 5xx). */
async function statusError(response: Response, id: ModelId): Promise<BubError> {
  const status = response.status;
  const text = await response.text().catch(() => "");
  const kind: ErrorKind = status === 429 || status >= 500 ? "temporary" : "provider";
  return new BubError(
    kind,
    `Model call to ${id.provider}:${id.model} failed with HTTP ${status}: ${
      errorMessage(text, response.statusText)
    }`,
    { ...id, status_code: status, response_body: text.slice(0, 2000) },
  );
}

function connectError(error: unknown, id: ModelId): BubError {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : "";
  const text = cause && !message.includes(cause) ? `${message} (${cause})` : message;
  return new BubError(
    "provider",
    `Model call to ${id.provider}:${id.model} failed: Cannot connect to API: ${text}`,
    { ...id },
    { cause: error },
  );
}

/**
 * Streams one call: `start` once the provider accepted it (OpenAI chat: once the first output
 * arrives, so an error frame before any output fails the call), then text / reasoning deltas,
 * the assembled tool calls, usage and the finish. Aborting `options.signal` throws its reason.
 *
 * @param target the model's URL, headers and `fetch`
 * @param body the request body (see `chatRequestBody` and `chatRequestBytes`)
 * @param options abort signal, activity callback and answer limit
 */
export async function* streamChatCompletions(
  target: ChatCompletionsTarget,
  body: string | Uint8Array<ArrayBuffer>,
  options: ModelStreamOptions = {},
): AsyncGenerator<ModelEvent> {
  const { id } = target;
  const { signal, onActivity } = options;
  signal?.throwIfAborted();
  let response: Response;
  onActivity?.();
  try {
    response = await target.fetch(target.url, {
      method: "POST",
      headers: target.headers,
      body,
      signal,
    });
  } catch (error) {
    throw signal?.aborted ? signal.reason : connectError(error, id);
  }
  onActivity?.();
  if (!response.ok) throw await statusError(response, id);
  if (!response.body) throw new BubError("provider", "Model call returned no body", { ...id });
  const reader = response.body.getReader();
  // The chunks' work is synchronous, in `ChatRead`: this generator only awaits and yields.
  const read = new ChatRead(target.protocol, id, answerLimit(options.maxAnswerBytes));
  if (read.started) yield read.startEvent;
  try {
    while (!read.ended && read.failure === null) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (error) {
        throw readError(error, signal, id, read.started);
      }
      onActivity?.();
      if (read.take(next)) {
        for (const event of read.out) yield event;
        read.out.length = 0;
      }
    }
    if (signal?.aborted) throw signal.reason;
    if (read.failure !== null) throw read.failure;
  } finally {
    // A stream read to its end needs no release (Bun: `releaseLock()` builds an error for the
    // closed promise, ~0.01-0.04 ms per call).
    if (!read.ended) {
      await reader.cancel().catch(() => {});
      reader.releaseLock();
    }
  }
}

/** What a failed read of the body throws: the abort reason, else a provider error. */
function readError(
  error: unknown,
  signal: AbortSignal | undefined,
  id: ModelId,
  started: boolean,
): unknown {
  if (signal?.aborted) return signal.reason;
  return providerError(error, id, started ? "stream" : "call");
}
