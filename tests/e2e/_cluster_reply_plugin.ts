/**
 * A plugin for the cluster gateway test (loaded through `plugins:` in config.yml): each turn's
 * model output on a Telegram message is sent to its chat (in a real deployment the model sends
 * it through the `telegram` skill's script, one subprocess per reply). A comma command's answer
 * goes to its chat anyway (its output channel is the channel): it is left alone.
 */
export default {
  name: "cluster-test-reply",
  renderOutbound(
    { message, sessionId, modelOutput }: {
      message: { channel?: string; chatId?: string; outputChannel?: string };
      sessionId: string;
      modelOutput: string;
    },
  ): Record<string, unknown> | null {
    if (message?.channel !== "telegram" || !modelOutput) return null;
    // A command's answer already goes to the chat (its output channel is the channel).
    if (message.outputChannel && message.outputChannel !== "null") return null;
    return {
      sessionId,
      channel: "telegram",
      chatId: String(message.chatId),
      content: modelOutput,
      outputChannel: "telegram",
    };
  },
};
