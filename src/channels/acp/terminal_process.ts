/**
 * A command run in the editor's terminal (ACP `terminal/*`), as a {@link Process}: Bub's shell
 * machinery (the `bash` tool's output buffer, timeout to background, `bash.output`, `bash.kill`,
 * termination on cancel) runs on it unchanged, so the model sees the same tool results as for a
 * local command. `terminal/create` starts it (a string through `bash -c`), `terminal/output` is
 * polled into its stdout while it runs, `terminal/wait_for_exit` gives its exit code,
 * `terminal/kill` is every signal, and `terminal/release` always ends it once it has exited
 * (after the editor was shown the terminal in the tool call that ran it).
 *
 * @module
 */
import { constants } from "node:os";
import { Process, type SpawnOptions } from "../../kernel/environment.ts";

/**
 * What `terminal/create` gets (the protocol's `CreateTerminalRequest` less the session).
 *
 * @example
 * ```ts
 * import type { TerminalSpec } from "@bub/core/channels";
 * const spec: TerminalSpec = {
 *   command: "bash",
 *   args: ["-c", "make test"],
 *   cwd: "/work",
 *   env: [{ name: "BUB_TOOL_CALL_ID", value: "call_1" }],
 *   outputByteLimit: 1024 * 1024,
 * };
 * ```
 */
export interface TerminalSpec {
  /** The program. */
  command: string;
  /** Its arguments. */
  args: string[];
  /** The working directory (absolute). */
  cwd: string | null;
  /** Variables added to the editor's environment. */
  env: { name: string; value: string }[];
  /** Output bytes the editor keeps (it drops the oldest past this). */
  outputByteLimit: number;
}

/**
 * The editor's terminals of one session, as a {@link TerminalProcess} uses them.
 *
 * @example
 * ```ts
 * import type { ClientTerminals } from "@bub/core/channels";
 * const never: ClientTerminals = {
 *   create: () => Promise.reject(new Error("no terminal")),
 *   output: () => Promise.resolve({ output: "", truncated: false }),
 *   waitForExit: () => Promise.resolve({ exitCode: 0 }),
 *   kill: () => Promise.resolve(),
 *   release: () => Promise.resolve(),
 *   embed: () => Promise.resolve(),
 * };
 * ```
 */
export interface ClientTerminals {
  /** `terminal/create`: the new terminal's id. */
  create(spec: TerminalSpec): Promise<string>;
  /** `terminal/output`: the output the editor kept, and the exit status once exited. */
  output(
    id: string,
  ): Promise<{ output: string; truncated: boolean; exitStatus?: TerminalExit | null }>;
  /** `terminal/wait_for_exit`. */
  waitForExit(id: string): Promise<TerminalExit>;
  /** `terminal/kill`. */
  kill(id: string): Promise<void>;
  /** `terminal/release`. */
  release(id: string): Promise<void>;
  /** Shows terminal `id` in tool call `callId`; resolves once the editor was told (or can't be). */
  embed(callId: string, id: string): Promise<void>;
}

/**
 * How a terminal's command ended (the protocol's `TerminalExitStatus`).
 *
 * @example
 * ```ts
 * import type { TerminalExit } from "@bub/core/channels";
 * const killed: TerminalExit = { exitCode: null, signal: "SIGKILL" };
 * ```
 */
export interface TerminalExit {
  /** The exit code, or null when a signal ended it. */
  exitCode?: number | null;
  /** The signal's name (e.g. `SIGTERM`), or null. */
  signal?: string | null;
}

/** Bytes of output the editor is asked to keep (its oldest output goes first past this). */
export const TERMINAL_OUTPUT_BYTE_LIMIT: number = 1024 * 1024;
/** How often the output of a running command is read, in milliseconds. */
const POLL_MS = 200;
/** Characters of the last output looked for in a truncated one, to find where new output starts. */
const OVERLAP = 256;
/** Put where the editor dropped output Bub had not read yet. */
export const DROPPED_NOTE: string = "[\u2026 output the editor dropped \u2026]\n";

/** The exit code of `exit`: its code, or `128 + n` for signal n (as for a local process). */
export function exitCodeOf(exit: TerminalExit): number {
  if (typeof exit.exitCode === "number") return exit.exitCode;
  const number = exit.signal ? (constants.signals as Record<string, number>)[exit.signal] : null;
  return typeof number === "number" ? 128 + number : 1;
}

/**
 * A command in the editor's terminal. Its stdout is the terminal's output (the editor merges
 * stderr into it, so stderr stays empty); it has no stdin.
 *
 * @example
 * ```ts no-eval
 * import { type ClientTerminals, TerminalProcess } from "./terminal_process.ts";
 * async function makeTest(terminals: ClientTerminals): Promise<string> {
 *   const process = await TerminalProcess.start(terminals, "make test", {}, "/work");
 *   const output = await new Response(process.stdout).text();
 *   return `${output}exit code ${await process.wait()}`;
 * }
 * ```
 */
export class TerminalProcess extends Process {
  /** No process id: the process is the editor's. */
  readonly pid: number | null = null;
  /** The terminal's output. */
  readonly stdout: ReadableStream<Uint8Array>;
  /** Always empty (the terminal's output holds both). */
  readonly stderr: ReadableStream<Uint8Array> = new ReadableStream({ start: (c) => c.close() });
  /** The editor's terminal id. */
  readonly terminalId: string;
  readonly #terminals: ClientTerminals;
  readonly #embedded: Promise<void>;
  #out!: ReadableStreamDefaultController<Uint8Array>;
  #seen = "";
  #returncode: number | null = null;
  readonly #done: Promise<number>;
  readonly #encoder = new TextEncoder();

  /**
   * Runs `command` in a new terminal of `terminals`: a string through `bash -c`, an array as
   * program and arguments, in `opts.cwd` (default `workspace`). The terminal is shown in the tool
   * call whose id is `opts.env.BUB_TOOL_CALL_ID`; aborting `opts.signal` kills the command.
   */
  static async start(
    terminals: ClientTerminals,
    command: string | string[],
    opts: SpawnOptions,
    workspace: string | null,
  ): Promise<TerminalProcess> {
    opts.signal?.throwIfAborted();
    const [program, ...args] = typeof command === "string" ? ["bash", "-c", command] : command;
    const env = Object.entries(opts.env ?? {}).map(([name, value]) => ({ name, value }));
    const id = await terminals.create({
      command: program!,
      args,
      cwd: opts.cwd ?? workspace,
      env,
      outputByteLimit: TERMINAL_OUTPUT_BYTE_LIMIT,
    });
    const callId = opts.env?.BUB_TOOL_CALL_ID;
    const embedded = callId ? terminals.embed(callId, id).catch(() => {}) : Promise.resolve();
    const process = new TerminalProcess(terminals, id, embedded);
    if (opts.signal) {
      const kill = () => process.signal({ kill: true });
      opts.signal.addEventListener("abort", kill, { once: true });
      void process.wait().finally(() => opts.signal!.removeEventListener("abort", kill));
    }
    return process;
  }

  private constructor(terminals: ClientTerminals, id: string, embedded: Promise<void>) {
    super();
    this.terminalId = id;
    this.#terminals = terminals;
    this.#embedded = embedded;
    this.stdout = new ReadableStream({ start: (controller) => void (this.#out = controller) });
    this.#done = this.#run();
  }

  /** The exit code, null until the command exited and its output was read. */
  get returncode(): number | null {
    return this.#returncode;
  }

  /** Waits for the exit code (the terminal is released by then). */
  wait(): Promise<number> {
    return this.#done;
  }

  /** A terminal has no stdin. */
  writeStdin(_data: Uint8Array): Promise<void> {
    return Promise.reject(new Error("A command in the editor's terminal has no stdin"));
  }

  /** Nothing to close: a terminal has no stdin. */
  closeStdin(): void {}

  /** `terminal/kill` (the protocol has one way to stop a command, for TERM and KILL alike). */
  signal(_opts: { kill: boolean }): void {
    if (this.#returncode === null) void this.#terminals.kill(this.terminalId).catch(() => {});
  }

  /** Polls the output until the command exits, reads it once more, then releases the terminal. */
  async #run(): Promise<number> {
    const id = this.terminalId;
    const exited = this.#terminals.waitForExit(id).then(
      (exit) => exitCodeOf(exit),
      () => -1,
    );
    let code: number | null = null;
    while (code === null) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const tick = new Promise<null>((
        resolve,
      ) => (timer = setTimeout(() => resolve(null), POLL_MS)));
      code = await Promise.race([exited, tick]);
      clearTimeout(timer);
      await this.#read();
    }
    this.#out.close();
    this.#returncode = code;
    await this.#embedded;
    await this.#terminals.release(id).catch(() => {});
    return code;
  }

  /** Reads the output and passes on what is new since the last read. */
  async #read(): Promise<void> {
    let now: { output: string; truncated: boolean };
    try {
      now = await this.#terminals.output(this.terminalId);
    } catch {
      return;
    }
    const seen = this.#seen;
    let fresh: string;
    if (!now.truncated && now.output.startsWith(seen)) {
      fresh = now.output.slice(seen.length);
    } else {
      // The editor dropped the oldest output: the new part follows the end of what was read.
      const tail = seen.slice(-OVERLAP);
      const at = tail === "" ? -1 : now.output.indexOf(tail);
      fresh = at >= 0
        ? now.output.slice(at + tail.length)
        : `${seen === "" && !now.truncated ? "" : DROPPED_NOTE}${now.output}`;
    }
    this.#seen = now.output;
    if (fresh !== "") this.#out.enqueue(this.#encoder.encode(fresh));
  }
}
