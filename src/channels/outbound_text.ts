/**
 * The text a channel sends for an outbound message's content: the agent's answers are JSON
 * (`{"message": …}`) when they come from a channel's own skill, else plain text.
 *
 * @module
 */

/**
 * The text to send for an outbound content: its JSON `message` field, else the content itself.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { outboundText } from "./outbound_text.ts";
 * assert.equal(outboundText('{"message": "hi"}'), "hi");
 * assert.equal(outboundText("plain"), "plain");
 * ```
 */
export function outboundText(content: string): string {
  try {
    const data: unknown = JSON.parse(content);
    if (typeof data === "object" && data !== null && !Array.isArray(data) && "message" in data) {
      const field = (data as { message: unknown }).message;
      return typeof field === "string" ? field : field === null ? "" : JSON.stringify(field);
    }
  } catch { /* not JSON: the raw content */ }
  return content;
}
