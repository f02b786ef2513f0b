/**
 * What every mock wire encoding shares: the `created` timestamp, one SSE event, a reply's usage
 * and tool-call ids.
 *
 * @module
 */
import type { MockProtocol, MockReply, MockUsage } from "./_mock_reply.ts";

/** The `created` timestamp of every mock response. */
export const CREATED = 1_700_000_000;
const DEFAULT_USAGE: MockUsage = { promptTokens: 10, completionTokens: 5 };

/** One SSE event. */
export function sse(data: unknown, event?: string): string {
  const line = `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
  return event ? `event: ${event}\n${line}` : line;
}

/** The usage a reply reports (default 10 + 5 tokens), or null. */
export function usageOf(reply: MockReply): MockUsage | null {
  return reply.usage === undefined ? DEFAULT_USAGE : reply.usage;
}

/** The id of the `index`th tool call. */
export function callId(protocol: MockProtocol, index: number, id: string | undefined): string {
  return id ?? (protocol === "anthropic" ? `toolu_${index + 1}` : `call_${index + 1}`);
}
