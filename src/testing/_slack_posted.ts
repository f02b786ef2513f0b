/**
 * Private: what the bot posted to the fake Slack, read from its call log — the messages of a
 * channel (posted, edited or streamed) and the buttons of their Block Kit cards.
 *
 * @module
 */
import type { FakeApiCall } from "./_fake_calls.ts";
import { chunkText, textOf } from "./_slack_payloads.ts";

/**
 * A button of a message the bot posted.
 *
 * @example
 * ```ts
 * import type { SlackButton } from "@bub/core/testing";
 * const approve: SlackButton = {
 *   actionId: "bub_approve",
 *   value: ",approve abcdefghij",
 *   messageTs: "1700000002.000100",
 *   threadTs: "1700000001.000100",
 * };
 * ```
 */
export interface SlackButton {
  /** The button's `action_id`. */
  actionId: string;
  /** Its `value`. */
  value: string;
  /** The `ts` of the message holding it. */
  messageTs: string;
  /** The `ts` of that message's thread. */
  threadTs: string;
}

/**
 * A message the bot posted, with its text as last edited or streamed.
 *
 * @example
 * ```ts
 * import type { PostedMessage } from "@bub/core/testing";
 * const answer: PostedMessage = { ts: "1700000002.000100", text: "Hi", threadTs: null };
 * ```
 */
export interface PostedMessage {
  /** Its `ts`. */
  ts: string;
  /** Its text. */
  text: string;
  /** The `ts` of its thread, null at the top level. */
  threadTs: string | null;
}

/** The buttons the bot posted in `channel` (Block Kit `actions` elements), in order. */
export function postedButtons(calls: readonly FakeApiCall[], channel: string): SlackButton[] {
  const out = [];
  for (const call of calls) {
    const p = call.params;
    if (call.method !== "chat.postMessage") continue;
    if (String(p.channel) !== channel || typeof p.blocks !== "string") continue;
    const blocks = JSON.parse(p.blocks) as { type: string; elements?: unknown[] }[];
    for (const block of blocks.filter((b) => b.type === "actions")) {
      for (const element of (block.elements ?? []) as Record<string, unknown>[]) {
        if (element.type !== "button") continue;
        out.push({
          actionId: String(element.action_id),
          value: String(element.value ?? ""),
          messageTs: String(p.__ts),
          threadTs: String(p.thread_ts ?? p.__ts),
        });
      }
    }
  }
  return out;
}

/** The texts posted or last updated in `channel`, in order of posting. */
export function postedMessages(calls: readonly FakeApiCall[], channel: string): PostedMessage[] {
  const out = new Map<string, PostedMessage>();
  for (const call of calls) {
    const p = call.params;
    // A call answered 429 posted nothing.
    if (String(p.channel) !== channel || p.rateLimited) continue;
    if (call.method === "chat.startStream") {
      const ts = String(p.__ts);
      out.set(ts, { ts, text: chunkText(p), threadTs: (p.thread_ts as string) ?? null });
    } else if (call.method === "chat.appendStream" || call.method === "chat.stopStream") {
      const entry = out.get(String(p.ts));
      if (entry) entry.text += chunkText(p);
    } else if (call.method === "chat.postMessage") {
      const ts = String(p.__ts);
      out.set(ts, { ts, text: textOf(p), threadTs: (p.thread_ts as string) ?? null });
    } else if (call.method === "chat.update") {
      const entry = out.get(String(p.ts));
      if (entry) entry.text = textOf(p);
    }
  }
  return [...out.values()];
}
