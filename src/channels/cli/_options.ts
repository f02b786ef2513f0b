/**
 * The constructor options of the CLI channel.
 *
 * @module
 */
import type { Readable, Writable } from "node:stream";
import type { MessageHandler } from "../../kernel/channel.ts";
import type { CliTapeInfo } from "./_panel.ts";

/**
 * Options of `CliChannel`.
 *
 * @example
 * ```ts
 * import { CliChannel, type CliChannelOptions } from "@bub/core/channels";
 * import { PassThrough } from "node:stream";
 * const options: CliChannelOptions = {
 *   handler: async () => {},
 *   workspace: ".",
 *   home: "/tmp/bub-home",
 *   input: new PassThrough(),
 *   output: new PassThrough(),
 *   terminal: false,
 * };
 * const channel = new CliChannel(options);
 * ```
 */
export interface CliChannelOptions {
  /** Receives every typed line as a {@link ChannelMessage} (the manager's handler). */
  handler: MessageHandler;
  /** The workspace path (welcome panel, prompt label, history file name). */
  workspace: string;
  /** The Bub home folder (`BUB_HOME`); history lives in `<home>/history/`. */
  home: string;
  /** The configured model, for display. Default `""`. */
  model?: string;
  /** Where lines come from. Default `process.stdin`. */
  input?: Readable;
  /** Where output goes. Default `process.stdout`. */
  output?: Writable;
  /**
   * Drive the output as a terminal (live rendering, spinner, prompt, key bindings).
   * Default: true when both input and output are TTYs.
   */
  terminal?: boolean;
  /** Current tape info of the session for the toolbar; null when unknown. */
  tapeInfo?: () => Promise<CliTapeInfo | null>;
  /** Runtime tool names offered by `,<name>` completion. */
  toolNames?: () => Iterable<string>;
  /** Called by Ctrl-C while a turn of `sessionId` runs (e.g. `manager.quit(sessionId)`). */
  onInterrupt?: (sessionId: string) => void | Promise<void>;
  /** The session id of typed messages. Default `"cli_session"`. */
  sessionId?: string;
  /** The chat id of typed messages. Default `"cli_chat"`. */
  chatId?: string;
  /** Milliseconds clock for the double Ctrl-C window. Default `Date.now`. */
  now?: () => number;
  /**
   * Read the next line only after the previous line's turn ended (for piped scripts: output
   * follows input, and the end of input does not cut a turn short). Default false: lines are
   * handed over at once and steer a running turn.
   */
  waitForTurns?: boolean;
}
