/**
 * Encodes a {@link MockReply} as OpenAI chat-completions, OpenAI Responses, Anthropic messages,
 * Gemini (`_mock_wire_gemini.ts`) or Bedrock Converse (`_mock_wire_bedrock.ts`) wire data: stream
 * events when streaming, one JSON body otherwise.
 *
 * @module
 */
import {
  argumentChunks,
  chunksOf,
  type MockErrorReply,
  type MockProtocol,
  type MockReply,
  type MockUsage,
} from "./_mock_reply.ts";

import { callId, CREATED, sse, usageOf } from "./_mock_wire_common.ts";
import {
  responsesEnd,
  responsesEvents,
  responsesOutput,
  responsesUsage,
} from "./_mock_wire_responses.ts";
import { geminiError, geminiEvents, geminiJson, geminiModelOf } from "./_mock_wire_gemini.ts";
import {
  bedrockError,
  bedrockErrorType,
  bedrockEvents,
  bedrockJson,
} from "./_mock_wire_bedrock.ts";

/** Whether a request asks for a stream: by its path (Gemini, Bedrock) or `stream: true`. */
export function streams(
  protocol: MockProtocol,
  path: string,
  body: Record<string, unknown>,
): boolean {
  const pathname = path.split("?")[0]!;
  if (protocol === "gemini") return pathname.endsWith(":streamGenerateContent");
  if (protocol === "bedrock") return pathname.endsWith("/converse-stream");
  return body.stream === true;
}

function chatUsage(usage: MockUsage): Record<string, unknown> {
  const out: Record<string, unknown> = {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
  if (usage.cachedTokens !== undefined) {
    out.prompt_tokens_details = { cached_tokens: usage.cachedTokens };
  }
  return out;
}

function chatEvents(reply: MockReply, model: string, includeUsage: boolean): string[] {
  const base = { id: "chatcmpl-mock", object: "chat.completion.chunk", created: CREATED, model };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sse({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
  const out: string[] = [chunk({ role: "assistant", content: "" })];
  for (const piece of chunksOf(reply.reasoning)) out.push(chunk({ reasoning_content: piece }));
  for (const piece of chunksOf(reply.text)) out.push(chunk({ content: piece }));
  (reply.toolCalls ?? []).forEach((call, index) => {
    argumentChunks(call).forEach((piece, n) => {
      const delta = n === 0
        ? {
          index,
          id: callId("chat", index, call.id),
          type: "function",
          function: { name: call.name, arguments: piece },
        }
        : { index, function: { arguments: piece } };
      out.push(chunk({ tool_calls: [delta] }));
    });
  });
  const finish = reply.finishReason ?? (reply.toolCalls?.length ? "tool_calls" : "stop");
  out.push(chunk({}, finish));
  const usage = usageOf(reply);
  if (includeUsage && usage) out.push(sse({ ...base, choices: [], usage: chatUsage(usage) }));
  out.push(sse("[DONE]"));
  return out;
}

function anthropicUsage(usage: MockUsage | null): Record<string, unknown> {
  if (!usage) return { input_tokens: 0, output_tokens: 0 };
  const out: Record<string, unknown> = {
    input_tokens: usage.promptTokens - (usage.cachedTokens ?? 0),
    output_tokens: usage.completionTokens,
  };
  if (usage.cachedTokens !== undefined) out.cache_read_input_tokens = usage.cachedTokens;
  return out;
}

function anthropicEvents(reply: MockReply, model: string): string[] {
  const usage = usageOf(reply);
  const out: string[] = [];
  const emit = (data: Record<string, unknown>) => out.push(sse(data, data.type as string));
  emit({
    type: "message_start",
    message: {
      id: "msg_mock",
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...anthropicUsage(usage), output_tokens: 1 },
    },
  });
  let index = 0;
  const block = (start: Record<string, unknown>, deltas: Record<string, unknown>[]) => {
    emit({ type: "content_block_start", index, content_block: start });
    for (const delta of deltas) emit({ type: "content_block_delta", index, delta });
    emit({ type: "content_block_stop", index });
    index++;
  };
  const thinking = chunksOf(reply.reasoning);
  if (thinking.length > 0) {
    block(
      { type: "thinking", thinking: "", signature: "" },
      [
        ...thinking.map((piece) => ({ type: "thinking_delta", thinking: piece })),
        { type: "signature_delta", signature: "mock-signature" },
      ],
    );
  }
  const text = chunksOf(reply.text);
  if (text.length > 0) {
    block({ type: "text", text: "" }, text.map((piece) => ({ type: "text_delta", text: piece })));
  }
  (reply.toolCalls ?? []).forEach((call, n) => {
    block(
      { type: "tool_use", id: callId("anthropic", n, call.id), name: call.name, input: {} },
      argumentChunks(call).map((piece) => ({ type: "input_json_delta", partial_json: piece })),
    );
  });
  const stop = reply.finishReason ?? (reply.toolCalls?.length ? "tool_use" : "end_turn");
  emit({
    type: "message_delta",
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: usage?.completionTokens ?? 0 },
  });
  emit({ type: "message_stop" });
  return out;
}

/** The stream events of `reply` in `protocol` (SSE text; Bedrock: event-stream messages). */
export function sseEvents(
  protocol: MockProtocol,
  reply: MockReply,
  body: Record<string, unknown>,
  path: string = "",
): Array<string | Uint8Array> {
  if (protocol === "gemini") return geminiEvents(reply, geminiModelOf(path));
  if (protocol === "bedrock") return bedrockEvents(reply);
  const model = typeof body.model === "string" ? body.model : "mock-model";
  if (protocol === "anthropic") return anthropicEvents(reply, model);
  if (protocol === "responses") return responsesEvents(reply, model);
  const options = body.stream_options as { include_usage?: unknown } | undefined;
  return chatEvents(reply, model, options?.include_usage === true);
}

/** The non-streaming JSON body of `reply` in `protocol`. */
export function jsonBody(
  protocol: MockProtocol,
  reply: MockReply,
  body: Record<string, unknown>,
  path: string = "",
): Record<string, unknown> {
  if (protocol === "gemini") return geminiJson(reply, geminiModelOf(path));
  if (protocol === "bedrock") return bedrockJson(reply);
  const model = typeof body.model === "string" ? body.model : "mock-model";
  const text = chunksOf(reply.text).join("");
  const usage = usageOf(reply);
  const calls = reply.toolCalls ?? [];
  if (protocol === "anthropic") {
    const content: Record<string, unknown>[] = [];
    if (text !== "") content.push({ type: "text", text });
    calls.forEach((call, n) => {
      let input: unknown = {};
      try {
        input = JSON.parse(argumentChunks(call).join(""));
      } catch { /* malformed arguments: empty input */ }
      content.push({
        type: "tool_use",
        id: callId("anthropic", n, call.id),
        name: call.name,
        input,
      });
    });
    return {
      id: "msg_mock",
      type: "message",
      role: "assistant",
      model,
      content,
      stop_reason: reply.finishReason ?? (calls.length ? "tool_use" : "end_turn"),
      stop_sequence: null,
      usage: anthropicUsage(usage),
    };
  }
  if (protocol === "responses") {
    return {
      id: "resp_mock",
      object: "response",
      created_at: CREATED,
      model,
      // Key order as before: status, output, incomplete_details.
      ...responsesEnd(reply, responsesOutput(reply)),
      usage: responsesUsage(usage),
    };
  }
  const message: Record<string, unknown> = { role: "assistant", content: text };
  const reasoning = chunksOf(reply.reasoning).join("");
  if (reasoning !== "") message.reasoning_content = reasoning;
  if (calls.length) {
    message.tool_calls = calls.map((call, n) => ({
      id: callId("chat", n, call.id),
      type: "function",
      function: { name: call.name, arguments: argumentChunks(call).join("") },
    }));
  }
  const out: Record<string, unknown> = {
    id: "chatcmpl-mock",
    object: "chat.completion",
    created: CREATED,
    model,
    choices: [{
      index: 0,
      message,
      finish_reason: reply.finishReason ?? (calls.length ? "tool_calls" : "stop"),
    }],
  };
  if (usage) out.usage = chatUsage(usage);
  return out;
}

/** The error body of `error` in `protocol`. */
export function errorBody(protocol: MockProtocol, error: MockErrorReply): string {
  if (error.body !== undefined) {
    return typeof error.body === "string" ? error.body : JSON.stringify(error.body);
  }
  if (protocol === "gemini") return geminiError(error);
  if (protocol === "bedrock") return bedrockError(error);
  const message = error.message ?? `Mock error ${error.status}`;
  if (protocol === "anthropic") {
    const type = error.type ??
      (error.status === 429
        ? "rate_limit_error"
        : error.status >= 500
        ? "api_error"
        : "invalid_request_error");
    return JSON.stringify({ type: "error", error: { type, message } });
  }
  return JSON.stringify({
    error: { message, type: error.type ?? null, param: null, code: error.code ?? null },
  });
}

/** Headers of an error response beyond its content type (AWS names the error type in one). */
export function errorHeaders(
  protocol: MockProtocol,
  error: MockErrorReply,
): Record<string, string> {
  return protocol === "bedrock" ? { "x-amzn-errortype": bedrockErrorType(error) } : {};
}
