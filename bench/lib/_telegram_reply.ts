/**
 * The bench plugin of the gateway benches (soak's gateway row, the cluster bench): renders each
 * Telegram turn's model output as a Telegram message. In a real deployment the model sends it
 * through the `telegram` skill's script, one subprocess per reply, which would measure process
 * spawning instead of the gateway.
 *
 * @module
 */
import { ChannelMessage } from "../../src/kernel/channel_message.ts";
import { type Envelope, envelopeField, fieldOf } from "../../src/kernel/envelope.ts";

/** The plugin; register it beside the builtin hooks. */
export const telegramReplyPlugin = {
  name: "bench-telegram-reply",
  renderOutbound({ message, sessionId, modelOutput }: {
    message: Envelope;
    sessionId: string;
    modelOutput: string;
  }): ChannelMessage | null {
    if (fieldOf(message, "channel", null) !== "telegram" || !modelOutput) return null;
    return new ChannelMessage({
      sessionId,
      channel: "telegram",
      chatId: String(envelopeField(message, "chatId", "chat_id")),
      content: modelOutput,
      outputChannel: "telegram",
    });
  },
};
