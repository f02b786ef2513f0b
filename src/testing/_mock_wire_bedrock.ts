/**
 * Amazon Bedrock Converse wire data of a {@link MockReply}: the `ConverseStream` events in AWS
 * event-stream framing, the `Converse` JSON body and the AWS error body.
 *
 * @module
 */
import {
  argumentChunks,
  chunksOf,
  type MockErrorReply,
  type MockReply,
  type MockUsage,
} from "./_mock_reply.ts";
import { usageOf } from "./_mock_wire_common.ts";
import { eventStreamEvent } from "./_aws_event_stream.ts";

/** The id of the `index`th tool call. */
function toolUseId(reply: MockReply, index: number): string {
  return reply.toolCalls![index]!.id ?? `tooluse_${index + 1}`;
}

function stopReason(reply: MockReply): string {
  return reply.finishReason ?? (reply.toolCalls?.length ? "tool_use" : "end_turn");
}

function bedrockUsage(usage: MockUsage | null): Record<string, unknown> {
  const prompt = usage?.promptTokens ?? 0;
  const completion = usage?.completionTokens ?? 0;
  const out: Record<string, unknown> = {
    inputTokens: prompt - (usage?.cachedTokens ?? 0),
    outputTokens: completion,
    totalTokens: prompt + completion,
  };
  if (usage?.cachedTokens !== undefined) out.cacheReadInputTokens = usage.cachedTokens;
  return out;
}

/** The `ConverseStream` event-stream messages of `reply`, one `Uint8Array` each. */
export function bedrockEvents(reply: MockReply): Uint8Array[] {
  const out: Uint8Array[] = [eventStreamEvent("messageStart", { role: "assistant" })];
  let index = 0;
  const thinking = chunksOf(reply.reasoning);
  if (thinking.length > 0) {
    for (const text of thinking) {
      out.push(eventStreamEvent("contentBlockDelta", {
        contentBlockIndex: index,
        delta: { reasoningContent: { text } },
      }));
    }
    out.push(eventStreamEvent("contentBlockDelta", {
      contentBlockIndex: index,
      delta: { reasoningContent: { signature: "mock-signature" } },
    }));
    out.push(eventStreamEvent("contentBlockStop", { contentBlockIndex: index++ }));
  }
  const text = chunksOf(reply.text);
  if (text.length > 0) {
    for (const piece of text) {
      out.push(eventStreamEvent("contentBlockDelta", {
        contentBlockIndex: index,
        delta: { text: piece },
      }));
    }
    out.push(eventStreamEvent("contentBlockStop", { contentBlockIndex: index++ }));
  }
  (reply.toolCalls ?? []).forEach((call, n) => {
    out.push(eventStreamEvent("contentBlockStart", {
      contentBlockIndex: index,
      start: { toolUse: { toolUseId: toolUseId(reply, n), name: call.name } },
    }));
    for (const input of argumentChunks(call)) {
      out.push(eventStreamEvent("contentBlockDelta", {
        contentBlockIndex: index,
        delta: { toolUse: { input } },
      }));
    }
    out.push(eventStreamEvent("contentBlockStop", { contentBlockIndex: index++ }));
  });
  out.push(eventStreamEvent("messageStop", { stopReason: stopReason(reply) }));
  out.push(eventStreamEvent("metadata", {
    usage: bedrockUsage(usageOf(reply)),
    metrics: { latencyMs: 1 },
  }));
  return out;
}

/** The `Converse` JSON body of `reply`. */
export function bedrockJson(reply: MockReply): Record<string, unknown> {
  const content: Record<string, unknown>[] = [];
  const text = chunksOf(reply.text).join("");
  if (text !== "") content.push({ text });
  (reply.toolCalls ?? []).forEach((call, n) => {
    let input: unknown = {};
    try {
      input = JSON.parse(argumentChunks(call).join(""));
    } catch { /* malformed arguments: empty input */ }
    content.push({ toolUse: { toolUseId: toolUseId(reply, n), name: call.name, input } });
  });
  return {
    output: { message: { role: "assistant", content } },
    stopReason: stopReason(reply),
    usage: bedrockUsage(usageOf(reply)),
    metrics: { latencyMs: 1 },
  };
}

const AWS_ERROR_TYPE: Readonly<Record<number, string>> = {
  400: "ValidationException",
  403: "AccessDeniedException",
  404: "ResourceNotFoundException",
  429: "ThrottlingException",
  500: "InternalServerException",
  503: "ServiceUnavailableException",
};

/** The AWS error type of an error reply (its `type`, else by status). */
export function bedrockErrorType(error: MockErrorReply): string {
  return error.type ?? AWS_ERROR_TYPE[error.status] ?? "InternalServerException";
}

/** The AWS JSON error body: `{"message": …}` (the type goes in `x-amzn-errortype`). */
export function bedrockError(error: MockErrorReply): string {
  return JSON.stringify({ message: error.message ?? `Mock error ${error.status}` });
}
