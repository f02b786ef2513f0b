/**
 * OpenAI Responses API wire data of a {@link MockReply}.
 *
 * @module
 */
import { argumentChunks, chunksOf, type MockReply, type MockUsage } from "./_mock_reply.ts";
import { callId, CREATED, sse, usageOf } from "./_mock_wire_common.ts";

/** Responses API usage. */
export function responsesUsage(usage: MockUsage | null): Record<string, unknown> | null {
  if (!usage) return null;
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cachedTokens ?? 0 },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}

/**
 * How a reply's response ends, with its `output`: `completed`, or `incomplete` for its finish
 * reason.
 */
export function responsesEnd(
  reply: MockReply,
  output: Record<string, unknown>[],
): Record<string, unknown> {
  return reply.finishReason === undefined
    ? { status: "completed", output, incomplete_details: null }
    : { status: "incomplete", output, incomplete_details: { reason: reply.finishReason } };
}

/** The output items of a reply. */
export function responsesOutput(reply: MockReply): Record<string, unknown>[] {
  const output: Record<string, unknown>[] = [];
  const text = chunksOf(reply.text).join("");
  if (text !== "" || !reply.toolCalls?.length) {
    output.push({
      type: "message",
      id: "msg_mock",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text, annotations: [] }],
    });
  }
  (reply.toolCalls ?? []).forEach((call, n) => {
    output.push({
      type: "function_call",
      id: `fc_${n + 1}`,
      call_id: callId("responses", n, call.id),
      name: call.name,
      arguments: argumentChunks(call).join(""),
      status: "completed",
    });
  });
  return output;
}

/** The Responses API SSE events of a reply. */
export function responsesEvents(reply: MockReply, model: string): string[] {
  const out: string[] = [];
  let seq = 0;
  const emit = (data: Record<string, unknown>) =>
    out.push(sse({ ...data, sequence_number: seq++ }, data.type as string));
  const response = { id: "resp_mock", object: "response", created_at: CREATED, model };
  emit({ type: "response.created", response: { ...response, status: "in_progress", output: [] } });
  const output = responsesOutput(reply);
  const textChunks = chunksOf(reply.text);
  output.forEach((item, outputIndex) => {
    if (item.type === "message") {
      emit({
        type: "response.output_item.added",
        output_index: outputIndex,
        item: { ...item, status: "in_progress", content: [] },
      });
      for (const delta of textChunks) {
        emit({
          type: "response.output_text.delta",
          item_id: item.id,
          output_index: outputIndex,
          content_index: 0,
          delta,
        });
      }
    } else {
      const call = reply.toolCalls![outputIndex - (output[0]?.type === "message" ? 1 : 0)]!;
      emit({
        type: "response.output_item.added",
        output_index: outputIndex,
        item: { ...item, arguments: "", status: "in_progress" },
      });
      for (const delta of argumentChunks(call)) {
        emit({
          type: "response.function_call_arguments.delta",
          item_id: item.id,
          output_index: outputIndex,
          delta,
        });
      }
      emit({
        type: "response.function_call_arguments.done",
        item_id: item.id,
        output_index: outputIndex,
        arguments: item.arguments,
      });
    }
    emit({ type: "response.output_item.done", output_index: outputIndex, item });
  });
  // A finish reason is why the response is incomplete (`max_output_tokens`, `content_filter`).
  const incomplete = reply.finishReason !== undefined;
  emit({
    type: incomplete ? "response.incomplete" : "response.completed",
    response: {
      ...response,
      ...responsesEnd(reply, output),
      usage: responsesUsage(usageOf(reply)),
    },
  });
  return out;
}
