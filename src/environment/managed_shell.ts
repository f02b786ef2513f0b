/**
 * {@link ManagedShell}: one command run by the shell runtime, with its combined output and the
 * exact termination and completion algorithms of the spec.
 *
 * @module
 */
import type { Process } from "../kernel/environment.ts";

/** The timing constants of shell termination (milliseconds); injectable for tests. */
export interface ShellTimings {
  /** How often termination probes whether the group is gone. Default 50. */
  pollIntervalMs: number;
  /** How long termination waits after TERM before sending KILL. Default 3000. */
  terminateTimeoutMs: number;
  /** How long to wait for exit and output readers after KILL before cancelling readers. Default 1000. */
  drainTimeoutMs: number;
}

/** The default {@link ShellTimings}: poll 50 ms, TERM grace 3 s, drain 1 s. */
export const DEFAULT_SHELL_TIMINGS: Readonly<ShellTimings> = Object.freeze({
  pollIntervalMs: 50,
  terminateTimeoutMs: 3000,
  drainTimeoutMs: 1000,
});

/** The size of the pieces output is appended in. */
const CHUNK_SIZE = 4096;

/** How {@link ManagedShell} was started; filled in by the shell manager. */
export interface ManagedShellInit {
  /** The shell id, `bash-<8 hex>`. */
  id: string;
  /** The command as given. */
  command: string | string[];
  /** The working directory as given, or null. */
  cwd: string | null;
  /** The owning session, or null. */
  sessionId: string | null;
  /** The started process; its stdin is closed right away. */
  process: Process;
  /** Timing constants. */
  timings: ShellTimings;
  /** Called once when the shell is finalized (to drop it from registries). */
  onFinalized: (shell: ManagedShell) => void;
}

/**
 * A running or finished command: stdout and stderr are read concurrently and appended, decoded as
 * UTF-8 with replacement characters, to one buffer in arrival order.
 */
export class ManagedShell {
  /** The shell id, `bash-<8 hex>`. */
  readonly id: string;
  /** The command as given. */
  readonly command: string | string[];
  /** The working directory as given, or null. */
  readonly cwd: string | null;
  /** The owning session, or null. */
  readonly sessionId: string | null;
  /** The process. */
  readonly process: Process;
  #timings: ShellTimings;
  #onFinalized: (shell: ManagedShell) => void;
  #text = "";
  #pending: string[] = [];
  #readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
  #readerDone: Promise<void>;
  #terminating: Promise<void> | null = null;
  #finalized = false;

  /**
   * Takes over a started process: closes its stdin and starts both output readers.
   *
   * @param init see {@link ManagedShellInit}
   */
  constructor(init: ManagedShellInit) {
    this.id = init.id;
    this.command = init.command;
    this.cwd = init.cwd;
    this.sessionId = init.sessionId;
    this.process = init.process;
    this.#timings = init.timings;
    this.#onFinalized = init.onFinalized;
    try {
      init.process.closeStdin();
    } catch {
      // stdin already closed
    }
    this.#readerDone = Promise.all([
      this.#pump(init.process.stdout),
      this.#pump(init.process.stderr),
    ]).then(() => {});
    this.#readerDone.catch(() => {});
  }

  /** The combined output so far. */
  get output(): string {
    if (this.#pending.length > 0) {
      this.#text += this.#pending.join("");
      this.#pending = [];
    }
    return this.#text;
  }

  /** The exit code of the shell process, or null while it runs. */
  get returncode(): number | null {
    return this.process.returncode;
  }

  /** `running` until the shell process exits, then `exited`. */
  get status(): "running" | "exited" {
    return this.returncode === null ? "running" : "exited";
  }

  /** True once the shell was finalized and dropped from its manager. */
  get finalized(): boolean {
    return this.#finalized;
  }

  /**
   * Stops the shell (idempotent; concurrent callers share one termination): TERM to the group,
   * poll until it is gone for at most `terminateTimeoutMs`, then KILL; wait up to `drainTimeoutMs`
   * for exit and readers; cancel readers still blocked (an escaped descendant may hold a pipe);
   * finalize.
   */
  terminate(): Promise<void> {
    this.#terminating ??= this.#terminate().finally(() => this.#finalize());
    return this.#terminating;
  }

  /**
   * Waits for the shell to exit and its output to be read, then finalizes it and returns the
   * exit code. Descendants left in the group after the shell exits are terminated; a reader
   * failure terminates the shell and is rethrown.
   */
  async waitClosed(): Promise<number | null> {
    if (this.#terminating) {
      await this.#terminating;
      return this.returncode;
    }
    const failed = this.#readerDone.then(() => new Promise<never>(() => {}));
    try {
      await Promise.race([this.process.wait(), failed]);
    } catch (error) {
      await this.terminate();
      throw error;
    }
    if (this.process.isRunning()) {
      await this.terminate();
      return this.returncode;
    }
    const drained = await _settledWithin(this.#readerDone, this.#timings.drainTimeoutMs);
    if (drained === "rejected") {
      await this.terminate();
      await this.#readerDone;
    }
    if (drained === "timeout") await this.#cancelReaders();
    this.#finalize();
    return this.returncode;
  }

  async #terminate(): Promise<void> {
    const proc = this.process;
    const { pollIntervalMs, terminateTimeoutMs, drainTimeoutMs } = this.#timings;
    if (proc.isRunning()) {
      proc.signal({ kill: false });
      const deadline = Date.now() + terminateTimeoutMs;
      while (proc.isRunning()) {
        const left = deadline - Date.now();
        if (left <= 0) break;
        await _sleep(Math.min(pollIntervalMs, left));
      }
      if (proc.isRunning()) proc.signal({ kill: true });
    }
    const done = Promise.all([proc.wait(), this.#readerDone]);
    if (await _settledWithin(done, drainTimeoutMs) === "timeout") await this.#cancelReaders();
  }

  async #pump(stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stream.getReader();
    this.#readers.push(reader);
    const decoder = new TextDecoder("utf-8");
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (let at = 0; at < value.byteLength; at += CHUNK_SIZE) {
          const piece = at === 0 && value.byteLength <= CHUNK_SIZE
            ? value
            : value.subarray(at, at + CHUNK_SIZE);
          const text = decoder.decode(piece, { stream: true });
          if (text !== "") this.#pending.push(text);
        }
      }
      const tail = decoder.decode();
      if (tail !== "") this.#pending.push(tail);
    } finally {
      reader.releaseLock();
    }
  }

  async #cancelReaders(): Promise<void> {
    await Promise.allSettled(this.#readers.map((reader) => reader.cancel()));
  }

  #finalize(): void {
    if (this.#finalized) return;
    this.#finalized = true;
    this.#onFinalized(this);
  }
}

function _sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits up to `ms` for `promise` to settle; never rejects. */
async function _settledWithin(
  promise: Promise<unknown>,
  ms: number,
): Promise<"fulfilled" | "rejected" | "timeout"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), ms);
  });
  try {
    return await Promise.race([
      promise.then(() => "fulfilled" as const, () => "rejected" as const),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
