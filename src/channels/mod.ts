/**
 * Channels: the {@link Channel} base class, the {@link ChannelManager} (admission, steering,
 * debounce), the memory, CLI and Telegram channels, the terminal Markdown renderer, and the web
 * console ({@link startWebConsole}).
 *
 * @example A channel manager with a memory channel
 * ```ts
 * import assert from "node:assert/strict";
 * import { mkdtempSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { BubFramework, definePlugin } from "@bub/core";
 * import { ChannelManager, MemoryChannel } from "@bub/core/channels";
 * const home = mkdtempSync(join(tmpdir(), "bub-"));
 * const bub = new BubFramework({ home, builtin: { env: { BUB_TAPE_STORE: "memory" } } });
 * bub.loadBuiltinHooks(); // renders and dispatches the outbound message
 * const channels: MemoryChannel[] = [];
 * bub.register(definePlugin({
 *   name: "memory",
 *   provideChannels: ({ messageHandler }) => {
 *     channels.push(new MemoryChannel(messageHandler, { name: "memory" }));
 *     return channels;
 *   },
 *   runModel: () => "pong",
 * }));
 * const manager = new ChannelManager(bub, { enabledChannels: ["memory"], debounceSeconds: 0 });
 * const stop = new AbortController();
 * const running = manager.listenAndRun({ signal: stop.signal });
 * while (!channels[0]?.running) await new Promise((resolve) => setTimeout(resolve, 10));
 * const channel = channels[0];
 * await channel.push({ chatId: "room", content: "hi" });
 * const sent = await channel.waitForSent(1);
 * assert.equal(sent[0]?.content, "pong");
 * stop.abort();
 * await running;
 * ```
 *
 * @module
 */
export { InMemorySteeringInbox } from "./steering_inbox.ts";
export { type AcpHost, type AcpServeOptions, serveAcp } from "./acp/acp_server.ts";
export {
  AcpBridge,
  type AcpClientFs,
  type AcpClientTerminal,
  type BaseEnvironment,
  type TerminalEmbedder,
} from "./acp/acp_bridge.ts";
export { type ClientFs, ClientFsEnvironment } from "./acp/client_environment.ts";
export type { ClientTerminals, TerminalExit, TerminalSpec } from "./acp/terminal_process.ts";
export { historyUpdates } from "./acp/history_updates.ts";
export { type AcpSessionInfo, type AcpSessionPage, listAcpSessions } from "./acp/session_list.ts";
export type { AcpUpdate } from "./acp/turn_updates.ts";
export type { AcpModels } from "./acp/session_config.ts";
export {
  startWebConsole,
  type WebConsole,
  type WebConsoleHost,
  type WebConsoleOptions,
} from "./web/console.ts";
export { WebChannel, type WebChannelOptions } from "./web/web_channel.ts";
export { ChatChannel, type ChatChannelOptions } from "./chat/chat_channel.ts";
export type { ChatCredentials } from "./chat/chat_platform.ts";
export {
  DEFAULT_WEBHOOK_MAX_BODY_BYTES,
  type WebhookHandler,
  WebhookServer,
  type WebhookServerOptions,
} from "./chat/webhook_server.ts";
export { Channel, type ChannelAdmitArgs, Interface, Lifecycle } from "./channel.ts";
export {
  type ChannelClock,
  type ChannelFramework,
  ChannelManager,
  type ChannelManagerOptions,
  type ListenOptions,
} from "./manager.ts";
export {
  MemoryChannel,
  type MemoryChannelOptions,
  type MemoryInbound,
  type RecordedStream,
} from "./memory_channel.ts";
export { MAX_MEDIA_BYTES } from "./media_limit.ts";
export {
  NO_ACCESS_MESSAGE,
  parseAllowList,
  splitMessageText,
  TELEGRAM_MESSAGE_LIMIT,
  TelegramChannel,
  type TelegramChannelOptions,
  type TypingLifespan,
} from "./telegram/telegram_channel.ts";
export {
  CliChannel,
  type CliChannelOptions,
  type CliTapeInfo,
  type CliTurnLifespan,
} from "./cli/cli_channel.ts";
export {
  type MarkdownProgress,
  MarkdownStream,
  type MarkdownToken,
  renderMarkdown,
  type RenderMarkdownOptions,
  renderTokens,
  type TextStyler,
  visibleWidth,
} from "./cli/markdown.ts";
