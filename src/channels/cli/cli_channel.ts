/**
 * The `cli` channel: a terminal REPL that turns typed lines into channel messages, renders the
 * model's stream as Markdown while it arrives, shows tool calls, and lets the user steer a
 * running turn, cancel it with Ctrl-C and toggle shell mode. What a typed line means is
 * `_typed_lines.ts`, what Ctrl-C does `_interrupts.ts`; reading lines is `_repl.ts`, rendering the
 * stream `_stream_render.ts`.
 *
 * @module
 */
import process from "node:process";
import { basename, resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import { getLogger } from "../../_internal/log.ts";
import { type AdmitDecision, admitDecision } from "../../kernel/channel.ts";
import { ChannelMessage } from "../../kernel/channel_message.ts";
import { contentOf, type Envelope } from "../../kernel/envelope.ts";
import { inboundOf } from "../../kernel/inbound.ts";
import type { StreamEvent } from "../../kernel/stream.ts";
import { type ChannelAdmitArgs, Interface } from "../channel.ts";
import type { CliChannelOptions } from "./_options.ts";
import { appendHistory, historyPath, loadHistory } from "./_history.ts";
import { formatToolbar, panel, type TapeInfo, welcomePanel } from "./_panel.ts";
import { LineReader } from "./_repl.ts";
import { StatusLine } from "./_spinner.ts";
import { renderStream } from "./_stream_render.ts";
import { Terminal } from "./_terminal.ts";
import { TurnTracker } from "./_turns.ts";
import { ApprovalPrompt } from "./_approval_prompt.ts";
import { Interrupts } from "./_interrupts.ts";
import { completions, lineContent, replCommand, waitForTurn } from "./_typed_lines.ts";

export type { CliTapeInfo, TapeInfo } from "./_panel.ts";
export type { CliTurnLifespan } from "./_turns.ts";
export type { CliChannelOptions } from "./_options.ts";

/**
 * The terminal REPL channel (`cli`, an `Interface`). Typed lines go to the handler without
 * waiting for the turn; `,quit`/`,exit`, Ctrl-D or two Ctrl-C within a second print `Bye.` and
 * abort the stop controller given to {@link CliChannel.start}.
 *
 * @example Driving it through in-memory streams
 * ```ts ignore
 * import { PassThrough } from "node:stream";
 * import { CliChannel } from "@bub/core/channels";
 * const input = new PassThrough();
 * const output = new PassThrough();
 * const cli = new CliChannel({
 *   handler: async (message) => console.log(message),
 *   workspace: "/tmp/project",
 *   home: "/tmp/bub-home",
 *   input,
 *   output,
 * });
 * const stop = new AbortController();
 * await cli.start(stop);
 * input.write("hello\n,quit\n");
 * ```
 */
export class CliChannel extends Interface {
  /** The channel name. */
  readonly name: string = "cli";
  #options: CliChannelOptions;
  #input: Readable;
  #output: Writable;
  #terminal: Terminal;
  #status: StatusLine;
  #sessionId: string;
  #chatId: string;
  #reader: LineReader | null = null;
  #stop: AbortController | null = null;
  #queue: Promise<void> = Promise.resolve();
  #turns: TurnTracker;
  #tape: TapeInfo | null = null;
  #shell = false;
  #thinking = false;
  #quitting = false;
  #interrupts: Interrupts;
  #approvals = new ApprovalPrompt();

  /**
   * Creates the object.
   *
   * @param options handler, streams, workspace and display settings
   */
  constructor(options: CliChannelOptions) {
    super();
    this.#options = options;
    this.#input = options.input ?? process.stdin;
    this.#output = options.output ?? process.stdout;
    const tty = options.terminal ??
      ((this.#input as { isTTY?: boolean }).isTTY === true &&
        (this.#output as { isTTY?: boolean }).isTTY === true);
    this.#terminal = new Terminal(this.#output, tty);
    this.#status = new StatusLine(this.#terminal, () => this.toolbar());
    this.#sessionId = options.sessionId ?? "cli_session";
    this.#chatId = options.chatId ?? "cli_chat";
    this.#interrupts = new Interrupts(options);
    this.#turns = new TurnTracker({
      started: (sessionId) => {
        this.#interrupts.turnStarted(sessionId);
        this.#status.start("Generating");
      },
      ended: async (_sessionId, idle) => {
        if (idle) this.#status.stop();
        await this.#refreshTape();
        this.#status.refresh();
      },
    });
  }

  /** The session id of typed messages. */
  get sessionId(): string {
    return this.#sessionId;
  }

  /** The chat id of typed messages. */
  get chatId(): string {
    return this.#chatId;
  }

  /** The history file: `<home>/history/<md5 hex of the workspace path>.history`. */
  get historyPath(): string {
    return historyPath(this.#options.home, this.#options.workspace);
  }

  /** True in shell mode (lines not starting with `,` get a `,` prefix). */
  get shellMode(): boolean {
    return this.#shell;
  }

  /** True when reasoning is shown expanded. */
  get thinkingExpanded(): boolean {
    return this.#thinking;
  }

  /** True while a turn started from this channel runs. */
  get generating(): boolean {
    return this.#turns.busy;
  }

  /** Overrides the session and chat ids of typed messages (e.g. from `bub chat` options). */
  setMetadata(metadata: { sessionId?: string; chatId?: string }): void {
    if (metadata.sessionId) this.#sessionId = metadata.sessionId;
    if (metadata.chatId) this.#chatId = metadata.chatId;
  }

  /** The prompt label: `<workspace folder> > `, or `<workspace folder> , ` in shell mode. */
  get promptLabel(): string {
    if (this.#approvals.waiting) return this.#approvals.label();
    return `${basename(resolve(this.#options.workspace))} ${this.#shell ? "," : ">"} `;
  }

  /** The toolbar line (time, mode, thinking, model and tape info). */
  toolbar(): string {
    return formatToolbar({
      now: new Date(),
      shellMode: this.#shell,
      thinkingExpanded: this.#thinking,
      model: this.#options.model ?? "",
      tape: this.#tape,
    });
  }

  /** Prints the welcome panel and starts reading lines; returns once the REPL is listening. */
  async start(stop: AbortController): Promise<void> {
    if (this.#reader) return;
    this.#stop = stop;
    this.#quitting = false;
    const { style, columns, tty } = this.#terminal;
    const workspace = resolve(this.#options.workspace);
    this.#terminal.print(
      welcomePanel({ workspace, model: this.#options.model ?? "", tty }, style, columns),
    );
    const history = await loadHistory(this.historyPath);
    await this.#refreshTape();
    this.#reader = new LineReader({
      input: this.#input,
      output: this.#output,
      terminal: this.#terminal,
      history,
      prompt: () => this.promptLabel,
      complete: (line) => completions(line, this.#options.toolNames),
      onLine: (line) => this.#enqueue(() => this.#handleLine(line)),
      onInterrupt: () => this.interrupt(),
      onEnd: () => this.#enqueue(() => this.#quit()),
      onToggleShell: () => this.#toggleShell(false),
    });
    this.#reader.open();
    this.#status.enable();
    this.#status.refresh();
  }

  /** Stops the spinner and the REPL. Safe to call more than once or before `start`. */
  stop(): Promise<void> {
    // Close the reader first: clearing the status line would otherwise redraw its prompt.
    const reader = this.#reader;
    this.#reader = null;
    reader?.close();
    this.#status.dispose();
    return this.#queue.catch(() => {});
  }

  /**
   * What Ctrl-C does: cancels the running turn through `onInterrupt`, or prints
   * `Interrupted. Use ',quit' to exit.`; a second call within one second quits.
   */
  interrupt(): void {
    const outcome = this.#interrupts.press(this.#turns.sessions());
    if (outcome === "quit") return this.#enqueue(() => this.#quit());
    const text = outcome === "cancelling"
      ? "Cancelling the running turn."
      : "Interrupted. Use ',quit' to exit.";
    this.#terminal.print(this.#terminal.style("yellow", text));
  }

  /**
   * Echoes the input; while a turn of the session runs, steers it into that turn. While a turn
   * cancelled by Ctrl-C winds down, the input follows up instead (steering it would lose it).
   */
  override admitMessage(
    { sessionId, message, turn }: ChannelAdmitArgs,
  ): Promise<AdmitDecision | null> {
    if (turn.isRunning && this.#interrupts.cancelling(sessionId)) {
      this.#echo(contentOf(message), false);
      return Promise.resolve(admitDecision("follow_up", "cli turn is being cancelled"));
    }
    this.#echo(contentOf(message), turn.isRunning);
    return Promise.resolve(
      turn.isRunning ? admitDecision("steer", "cli session is already generating") : null,
    );
  }

  /** Shows error messages in a red `Error` panel; other messages are shown by streaming. */
  override send(message: ChannelMessage): Promise<void> {
    if (message.kind === "error") {
      const { style, columns } = this.#terminal;
      this.#terminal.print(panel("Error", contentOf(message), style, columns));
    }
    return Promise.resolve();
  }

  /** Renders the stream live (Markdown panels, reasoning, tool calls) and re-yields its events. */
  override streamEvents(
    message: Envelope,
    stream: AsyncIterable<StreamEvent>,
  ): AsyncIterable<StreamEvent> {
    const watched = this.#approvals.watch(stream, () => this.#reader?.refreshPrompt());
    return renderStream(watched, {
      terminal: this.#terminal,
      title: inboundOf(message).kind === "command" ? "Command" : "Assistant",
      thinkingExpanded: () => this.#thinking,
    });
  }

  #enqueue(task: () => void | Promise<void>): void {
    this.#queue = this.#queue.then(task).catch((error) =>
      getLogger(["bub", "channels", "cli"]).error("cli.repl_failed: {error}", { error })
    );
  }

  async #handleLine(raw: string): Promise<void> {
    if (this.#quitting) return;
    const line = raw.trim();
    if (!line) return;
    await appendHistory(this.historyPath, line).catch((error) =>
      getLogger(["bub", "channels", "cli"]).warn("cli.history_failed: {error}", { error })
    );
    const command = replCommand(line);
    if (command === "quit") return this.#quit();
    if (command === "thinking") {
      this.#echo(line, this.generating);
      this.#thinking = !this.#thinking;
      this.#info(`Thinking output is now ${this.#thinking ? "expanded" : "collapsed"}.`);
      this.#status.refresh();
      return;
    }
    if (command === "shell") return this.#toggleShell(true);
    const content = lineContent(line, this.#shell, this.#approvals.answer(line));
    const sessionId = this.#sessionId;
    const lifespan = this.#turns.lifespan(sessionId);
    const message = new ChannelMessage({
      sessionId,
      channel: "cli",
      chatId: this.#chatId,
      content,
      context: { thread_id: sessionId },
      lifespan,
    });
    this.#options.handler(message).catch((error) =>
      getLogger(["bub", "channels", "cli"]).error("cli.handler_failed: {error}", { error })
    );
    if (this.#options.waitForTurns) await waitForTurn(lifespan);
  }

  #toggleShell(announce: boolean): void {
    this.#shell = !this.#shell;
    if (announce) this.#info(`Shell mode is now ${this.#shell ? "on" : "off"}.`);
    this.#reader?.refreshPrompt();
    this.#status.refresh();
  }

  #quit(): void {
    if (this.#quitting) return;
    this.#quitting = true;
    // Close the reader first, so no prompt is redrawn below `Bye.`.
    const reader = this.#reader;
    this.#reader = null;
    reader?.close();
    this.#status.dispose();
    this.#terminal.print("Bye.");
    this.#stop?.abort();
  }

  #echo(content: string, steering: boolean): void {
    const { style } = this.#terminal;
    const marker = steering ? " " + style("yellow", "(steering)") : "";
    this.#terminal.print(style("dim", `› ${content}`) + marker);
  }

  #info(text: string): void {
    this.#terminal.print(this.#terminal.style("cyan", text));
  }

  async #refreshTape(): Promise<void> {
    const tapeInfo = this.#options.tapeInfo;
    if (!tapeInfo) return;
    try {
      this.#tape = await tapeInfo();
    } catch (error) {
      getLogger(["bub", "channels", "cli"]).debug("cli.tape_info_failed: {error}", { error });
    }
  }
}
