/**
 * One `LanguageModelV4.doStream` call: request arguments (§4.2) and stream parts → `ModelEvent`s.
 * The SDK's usage becomes the OpenAI chat usage shape, nulls dropped (`normalizeUsage`).
 *
 * @module
 */
import type {
  APICallError,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import { getLogger } from "../../_internal/log.ts";
import { lazyImport } from "../../_internal/lazy.ts";
import { BubError, type ErrorKind } from "../../kernel/errors.ts";
import type {
  ChatContentPart,
  ChatUsage,
  ModelEvent,
  ModelFinishReason,
  ModelRequest,
} from "../model_client.ts";
import type { ModelId, ProviderProtocol } from "./provider_presets.ts";
import { toV4Prompt, toV4Tools } from "./_prompt.ts";
import { type BodyExtras, type FetchLike, withBodyExtras, withRawParts } from "./_request_body.ts";
import { answerLimit } from "../_answer_limit.ts";

const logger = getLogger(["bub", "agent", "model"]);

/** `@ai-sdk/provider`, loaded by the first call (its providers load it anyway). */
const providerModule = lazyImport(() => import("@ai-sdk/provider"));
let apiCallError: typeof APICallError | null = null;

/** Keys Bub manages itself; completion args never set them. */
const MANAGED = ["model", "messages", "tools", "max_tokens", "stream", "input"];
const V4_REASONING = new Set(["none", "minimal", "low", "medium", "high", "xhigh", "max"]);

/**
 * Bub's body fields of one request around the provider's own: completion args (managed keys
 * dropped) first, the protocol's usage / cache fields, and the reasoning effort last (or as the
 * SDK's `reasoning` option, returned separately).
 */
export function bodyExtras(protocol: ProviderProtocol, request: ModelRequest): {
  extras: BodyExtras;
  reasoning: string | null;
  providerOptions?: LanguageModelV4CallOptions["providerOptions"];
} {
  const before: Record<string, unknown> = { ...request.completionArgs };
  for (const key of MANAGED) delete before[key];
  const after: Record<string, unknown> = {};
  if (protocol === "openai-compatible" || protocol === "openai-chat") {
    before.stream_options = { include_usage: true };
    if (request.reasoningEffort != null) after.reasoning_effort = request.reasoningEffort;
    return { extras: { before, after }, reasoning: null };
  }
  // The other protocols take no `stream_options`, and the effort from the request, else from a
  // `reasoning_effort` completion arg.
  delete before.stream_options;
  const effort = request.reasoningEffort ?? before.reasoning_effort;
  delete before.reasoning_effort;
  const reasoning = typeof effort === "string" ? effort : null;
  switch (protocol) {
    case "openai-responses":
      if (effort != null) after.reasoning = { effort };
      return { extras: { before, after }, reasoning: null };
    case "anthropic":
      before.cache_control = { type: "ephemeral" };
      break;
    case "google":
      break;
    case "bedrock": {
      // The body is signed (SigV4) before Bub's fetch sees it: the extra fields go through the
      // SDK, as the Converse request's `additionalModelRequestFields`.
      const fields = before as Record<string, never>;
      const providerOptions = Object.keys(fields).length > 0
        ? { bedrock: { additionalModelRequestFields: fields } }
        : undefined;
      return { extras: { before: {}, after }, reasoning, providerOptions };
    }
  }
  return { extras: { before, after }, reasoning };
}

/** Builds the wrapped `fetch` and the `doStream` options of one request. */
export function buildCall(
  protocol: ProviderProtocol,
  request: ModelRequest,
  fetchFn: FetchLike,
  signal: AbortSignal | undefined,
): { fetch: FetchLike; callOptions: LanguageModelV4CallOptions } {
  const { extras, reasoning, providerOptions } = bodyExtras(protocol, request);
  // Media parts go as the protocol takes them; raw ones are swapped back into the body.
  const raw: ChatContentPart[] = [];
  const callOptions: LanguageModelV4CallOptions = {
    prompt: toV4Prompt(request.messages, protocol, raw),
  };
  const tools = toV4Tools(request.tools);
  if (tools) callOptions.tools = tools;
  if (request.maxTokens != null) callOptions.maxOutputTokens = request.maxTokens;
  if (signal) callOptions.abortSignal = signal;
  if (providerOptions) callOptions.providerOptions = providerOptions;
  if (reasoning != null && V4_REASONING.has(reasoning)) {
    callOptions.reasoning = reasoning as LanguageModelV4CallOptions["reasoning"];
  }
  return { fetch: withBodyExtras(withRawParts(fetchFn, raw), extras), callOptions };
}

function errorText(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? error.cause.message : "";
    return cause && !error.message.includes(cause) ? `${error.message} (${cause})` : error.message;
  }
  if (error !== null && typeof error === "object") {
    const inner = error as { error?: { message?: unknown }; message?: unknown };
    if (typeof inner.error?.message === "string") return inner.error.message;
    if (typeof inner.message === "string") return inner.message;
    return JSON.stringify(error);
  }
  return String(error);
}

/** Wraps a provider failure into a `BubError` that keeps the provider's message. */
export function providerError(error: unknown, id: ModelId, during: "call" | "stream"): unknown {
  if (BubError.isInstance(error)) return error;
  const limit = answerLimitCause(error);
  if (limit !== null) return limit;
  const name = `${id.provider}:${id.model}`;
  const details: Record<string, unknown> = { provider: id.provider, model: id.model };
  let kind: ErrorKind = "provider";
  let prefix = during === "call"
    ? `Model call to ${name} failed`
    : `Model stream from ${name} failed`;
  if (apiCallError?.isInstance(error)) {
    const status = error.statusCode;
    if (status !== undefined && status >= 400) {
      details.status_code = status;
      prefix += ` with HTTP ${status}`;
      if (status === 429 || status >= 500) kind = "temporary";
    }
    if (error.responseBody !== undefined) details.response_body = error.responseBody.slice(0, 2000);
  } else if ((error as { name?: unknown })?.name === "AI_LoadAPIKeyError") {
    kind = "config";
  }
  return new BubError(kind, `${prefix}: ${errorText(error)}`, details, { cause: error });
}

/** The answer-limit error a provider wrapped (its `cause`, a few levels down), or null. */
function answerLimitCause(error: unknown): BubError | null {
  let cause = (error as { cause?: unknown } | null)?.cause;
  for (let depth = 0; depth < 4 && cause != null; depth++) {
    if (BubError.isInstance(cause) && cause.details?.max_answer_bytes !== undefined) return cause;
    cause = (cause as { cause?: unknown }).cause;
  }
  return null;
}

function abortReason(signal: AbortSignal | undefined): unknown {
  return signal?.aborted ? signal.reason : undefined;
}

/**
 * Calls `model.doStream` and converts its parts: `text-delta` → `text`, `reasoning-delta` →
 * `reasoning`, `tool-call` → `tool_call`, `finish` → `usage` (when reported) then `finish`.
 * Text, reasoning and tool-input deltas count against `maxAnswerBytes` as they arrive; past it
 * the stream is cancelled and the call fails (`answerTooLarge`).
 */
export async function* streamLanguageModel(
  model: LanguageModelV4,
  callOptions: LanguageModelV4CallOptions,
  id: ModelId,
  signal: AbortSignal | undefined,
  maxAnswerBytes?: number,
): AsyncGenerator<ModelEvent> {
  const limit = answerLimit(maxAnswerBytes);
  signal?.throwIfAborted();
  apiCallError ??= (await providerModule()).APICallError;
  let result;
  try {
    result = await model.doStream(callOptions);
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw providerError(error, id, "call");
  }
  logger.debug("model call started provider={provider} model={model}", { ...id });
  yield { type: "start", provider: id.provider, model: id.model };
  const reader = result.stream.getReader();
  let toolIndex = 0;
  let finished = false;
  try {
    while (true) {
      let next: ReadableStreamReadResult<LanguageModelV4StreamPart>;
      try {
        next = await reader.read();
      } catch (error) {
        if (signal?.aborted) throw abortReason(signal);
        throw providerError(error, id, "stream");
      }
      if (next.done) break;
      const part = next.value;
      switch (part.type) {
        case "text-delta":
          limit?.add(part.delta);
          if (part.delta !== "") yield { type: "text", delta: part.delta };
          break;
        case "reasoning-delta":
          limit?.add(part.delta);
          if (part.delta !== "") yield { type: "reasoning", delta: part.delta };
          break;
        case "tool-input-delta":
          limit?.add(part.delta);
          break;
        case "tool-call":
          if (part.providerExecuted) break;
          yield {
            type: "tool_call",
            index: toolIndex++,
            id: part.toolCallId,
            name: part.toolName,
            arguments: part.input,
          };
          break;
        case "error":
          if (signal?.aborted) throw abortReason(signal);
          throw providerError(part.error, id, "stream");
        case "finish": {
          const usage = normalizeUsage(part.usage);
          if (usage) yield { type: "usage", usage };
          finished = true;
          yield {
            type: "finish",
            reason: part.finishReason.unified as ModelFinishReason,
            rawReason: part.finishReason.raw ?? null,
          };
          break;
        }
        default:
          break;
      }
    }
    if (signal?.aborted) throw abortReason(signal);
    if (!finished) {
      throw new BubError("provider", `Model stream from ${id.provider}:${id.model} ended early`, {
        ...id,
      });
    }
  } finally {
    await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/** Deep copy of `value` without `null`/`undefined` object fields. */
export function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (item === null || item === undefined) continue;
      out[key] = dropNulls(item);
    }
    return out;
  }
  return value;
}

/**
 * Normalizes a provider usage report. A raw OpenAI chat usage object (with `prompt_tokens`) is
 * kept as sent; any other provider is mapped to `{prompt_tokens, completion_tokens, total_tokens,
 * prompt_tokens_details?: {cached_tokens}}`. Returns null when nothing was reported.
 */
export function normalizeUsage(usage: LanguageModelV4Usage | undefined): ChatUsage | null {
  if (!usage) return null;
  const raw = usage.raw as Record<string, unknown> | undefined;
  if (raw && typeof raw.prompt_tokens === "number") return dropNulls(raw) as ChatUsage;
  const prompt = usage.inputTokens.total;
  const completion = usage.outputTokens.total;
  if (prompt === undefined && completion === undefined) return null;
  const out: ChatUsage = {};
  if (prompt !== undefined) out.prompt_tokens = prompt;
  if (completion !== undefined) out.completion_tokens = completion;
  out.total_tokens = (prompt ?? 0) + (completion ?? 0);
  if (usage.inputTokens.cacheRead !== undefined) {
    out.prompt_tokens_details = { cached_tokens: usage.inputTokens.cacheRead };
  }
  if (usage.outputTokens.reasoning !== undefined) {
    out.completion_tokens_details = { reasoning_tokens: usage.outputTokens.reasoning };
  }
  return out;
}
