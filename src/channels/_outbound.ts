/**
 * Outbound routing helpers of the channel manager.
 *
 * @module
 */
import { ChannelMessage, type MessageKind } from "../kernel/channel_message.ts";
import { contentOf, type Envelope, envelopeField, fieldOf } from "../kernel/envelope.ts";

/** `outputChannel` (or `output_channel`) when present, else `channel`; null when neither. */
export function targetOf(message: Envelope): string | null {
  const key = ["outputChannel", "output_channel"].find((name) => hasField(message, name)) ??
    "channel";
  const value = fieldOf(message, key, null);
  return value === null || value === undefined ? null : String(value);
}

function hasField(message: Envelope, key: string): boolean {
  if (message instanceof Map) return message.has(key);
  return typeof message === "object" && message !== null && key in message;
}

/**
 * The `ChannelMessage` sent to channel `target`: session id (default `<target>:default`), chat id
 * (default `default`), content, the message's own context object (which gains the `channel` and
 * `chat_id` keys), kind (default `normal`) and media.
 */
export function outboundFor(message: Envelope, target: string): ChannelMessage {
  const context = fieldOf(message, "context", null);
  const media = fieldOf(message, "media", null);
  return new ChannelMessage({
    sessionId: String(envelopeField(message, "sessionId", "session_id") ?? `${target}:default`),
    channel: target,
    chatId: String(envelopeField(message, "chatId", "chat_id") ?? "default"),
    content: contentOf(message),
    context: typeof context === "object" && context !== null
      ? context as Record<string, unknown>
      : {},
    kind: String(fieldOf(message, "kind", null) ?? "normal") as MessageKind,
    ...(Array.isArray(media) ? { media } : {}),
  });
}
