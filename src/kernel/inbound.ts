/**
 * The typed view of an inbound message: {@link InboundMessage}, read once from any envelope
 * (plain object, `Map`, `ChannelMessage`, a plugin's own class) by {@link inboundOf}. Stages read
 * typed fields from it; the envelope itself stays available as `raw` for plugins that bring
 * their own fields.
 *
 * @module
 */
import { type Envelope, envelopeField, fieldOf } from "./envelope.ts";

/** An inbound message with typed fields (camelCase, as `ChannelMessage` names them). */
export interface InboundMessage {
  /** The message's own session id (`sessionId` / `session_id`), or null when absent or null. */
  readonly sessionId: string | null;
  /** The channel name, or null when absent. */
  readonly channel: string | null;
  /** The chat id (`chatId` / `chat_id`) as a string, or null when absent. */
  readonly chatId: string | null;
  /** The text (`""` when absent or null). */
  readonly content: string;
  /** The metadata mapping (`{}` when absent or not a mapping). */
  readonly context: Readonly<Record<string, unknown>>;
  /** The attachments (`[]` when absent or not a list). */
  readonly media: readonly unknown[];
  /** `normal`, `command` or `error` (or a plugin's own); `"normal"` when absent. */
  readonly kind: string;
  /** Where replies go (`outputChannel` / `output_channel`), or null when absent. */
  readonly outputChannel: string | null;
  /** Part of an active conversation (`isActive` / `is_active` is `true`). */
  readonly isActive: boolean;
  /** Who sent it (`sender`, else `senderId` / `sender_id`) as a string, or null. */
  readonly sender: string | null;
  /** The envelope as given (the same object), for fields this view does not type. */
  readonly raw: Envelope;
}

function text(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

/**
 * The typed view of `envelope` (see {@link InboundMessage}). It is a snapshot: fields written
 * onto the envelope later are not seen.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { inboundOf } from "./inbound.ts";
 * const inbound = inboundOf({ channel: "cli", chat_id: 7, content: "hi" });
 * assert.ok(inbound.chatId === "7" && inbound.sessionId === null && inbound.kind === "normal");
 * ```
 */
export function inboundOf(envelope: Envelope): InboundMessage {
  const context = fieldOf(envelope, "context", null);
  const media = fieldOf(envelope, "media", null);
  const content = fieldOf(envelope, "content", null);
  const sender = fieldOf(envelope, "sender", null) ??
    envelopeField(envelope, "senderId", "sender_id");
  return {
    sessionId: text(envelopeField(envelope, "sessionId", "session_id")),
    channel: text(fieldOf(envelope, "channel", null)),
    chatId: text(envelopeField(envelope, "chatId", "chat_id")),
    content: content === null ? "" : String(content),
    context: typeof context === "object" && context !== null && !Array.isArray(context)
      ? context as Record<string, unknown>
      : {},
    media: Array.isArray(media) ? media : [],
    kind: text(fieldOf(envelope, "kind", null)) ?? "normal",
    outputChannel: text(envelopeField(envelope, "outputChannel", "output_channel")),
    isActive: envelopeField(envelope, "isActive", "is_active") === true,
    sender: text(sender),
    raw: envelope,
  };
}
