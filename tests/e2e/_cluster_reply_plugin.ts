/**
 * A plugin for the cluster gateway test (loaded through `plugins:` in config.yml): each turn's
 * model output on a Telegram message is sent to its chat (in a real deployment the model sends
 * it through the `telegram` skill's script, one subprocess per reply).
 */
export default {
  name: "cluster-test-reply",
  renderOutbound(
    { message, sessionId, modelOutput }: {
      message: { channel?: string; chatId?: string };
      sessionId: string;
      modelOutput: string;
    },
  ): Record<string, unknown> | null {
    if (message?.channel !== "telegram" || !modelOutput) return null;
    return {
      sessionId,
      channel: "telegram",
      chatId: String(message.chatId),
      content: modelOutput,
      outputChannel: "telegram",
    };
  },
};
