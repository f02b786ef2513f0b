/**
 * Google Gemini (`generativelanguage` and Vertex AI) wire data of a {@link MockReply}: the SSE
 * chunks of `:streamGenerateContent?alt=sse`, the JSON body of `:generateContent` and the
 * Google error body.
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
import { sse, usageOf } from "./_mock_wire_common.ts";

/** The model a Gemini path names (`…/models/<model>:streamGenerateContent`), else `mock-model`. */
export function geminiModelOf(path: string): string {
  const match = /\/models\/([^/:?]+):/.exec(path);
  return match ? decodeURIComponent(match[1]!) : "mock-model";
}

function geminiUsage(usage: MockUsage): Record<string, unknown> {
  const out: Record<string, unknown> = {
    promptTokenCount: usage.promptTokens,
    candidatesTokenCount: usage.completionTokens,
    totalTokenCount: usage.promptTokens + usage.completionTokens,
  };
  if (usage.cachedTokens !== undefined) out.cachedContentTokenCount = usage.cachedTokens;
  return out;
}

function callArgs(reply: MockReply, index: number): unknown {
  try {
    return JSON.parse(argumentChunks(reply.toolCalls![index]!).join(""));
  } catch {
    return {};
  }
}

/** Every part of a reply, in the order Gemini streams them: thoughts, text, function calls. */
function partsOf(reply: MockReply): Record<string, unknown>[][] {
  const parts: Record<string, unknown>[][] = [];
  for (const piece of chunksOf(reply.reasoning)) parts.push([{ text: piece, thought: true }]);
  for (const piece of chunksOf(reply.text)) parts.push([{ text: piece }]);
  (reply.toolCalls ?? []).forEach((call, index) => {
    parts.push([{ functionCall: { name: call.name, args: callArgs(reply, index) } }]);
  });
  return parts;
}

/** The `:streamGenerateContent?alt=sse` events of `reply`: one candidate chunk per piece. */
export function geminiEvents(reply: MockReply, model: string): string[] {
  const pieces = partsOf(reply);
  if (pieces.length === 0) pieces.push([{ text: "" }]);
  const chunks = pieces.map((parts) => ({
    candidates: [{ content: { parts, role: "model" }, index: 0 } as Record<string, unknown>],
    modelVersion: model,
    responseId: "mock-response",
  } as Record<string, unknown>));
  const last = chunks[chunks.length - 1]!;
  (last.candidates as Record<string, unknown>[])[0]!.finishReason = reply.finishReason ?? "STOP";
  const usage = usageOf(reply);
  if (usage) last.usageMetadata = geminiUsage(usage);
  return chunks.map((chunk) => sse(chunk));
}

/** The `:generateContent` JSON body of `reply`. */
export function geminiJson(reply: MockReply, model: string): Record<string, unknown> {
  const usage = usageOf(reply);
  return {
    candidates: [{
      content: { parts: partsOf(reply).flat(), role: "model" },
      finishReason: reply.finishReason ?? "STOP",
      index: 0,
    }],
    ...(usage ? { usageMetadata: geminiUsage(usage) } : {}),
    modelVersion: model,
    responseId: "mock-response",
  };
}

const GOOGLE_STATUS: Readonly<Record<number, string>> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
};

/** Google's error body: `{"error": {"code", "message", "status"}}`. */
export function geminiError(error: MockErrorReply): string {
  const status = error.type ?? GOOGLE_STATUS[error.status] ?? "UNKNOWN";
  const message = error.message ?? `Mock error ${error.status}`;
  return JSON.stringify({ error: { code: error.status, message, status } });
}
