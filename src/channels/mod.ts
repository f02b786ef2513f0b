/**
 * Channels: the {@link Channel} base class, the {@link ChannelManager} (admission, steering,
 * debounce), the memory, CLI and Telegram channels, the terminal Markdown renderer, and the web
 * console ({@link startWebConsole}).
 *
 * @module
 */
export { InMemorySteeringInbox } from "./steering_inbox.ts";
export {
  startWebConsole,
  type WebConsole,
  type WebConsoleHost,
  type WebConsoleOptions,
} from "./web/console.ts";
export { WebChannel, type WebChannelOptions } from "./web/web_channel.ts";
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
export {
  MAX_MEDIA_BYTES,
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
