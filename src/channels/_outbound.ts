/**
 * Outbound routing helpers of the channel manager.
 *
 * @module
 */
import { ChannelMessage, type MediaItem, type MessageKind } from "../kernel/channel_message.ts";
import { type Envelope, fieldOf, sessionKey } from "../kernel/envelope.ts";
import { inboundOf } from "../kernel/inbound.ts";

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
  const outbound = inboundOf(message);
  return new ChannelMessage({
    sessionId: outbound.sessionId ?? sessionKey(target, null),
    channel: target,
    chatId: outbound.chatId ?? "default",
    content: outbound.content,
    // The message's own context object (not a copy): ChannelMessage writes channel/chat_id in.
    context: outbound.context as Record<string, unknown>,
    kind: outbound.kind as MessageKind,
    media: outbound.media as MediaItem[],
  });
}
