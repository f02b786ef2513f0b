/**
 * {@link ManagedShell}: one command run by the shell runtime, with its combined output and the
 * exact termination and completion algorithms of the spec.
 *
 * @module
 */
import { setImmediate } from "node:timers";
import type { Process } from "../kernel/environment.ts";
import type { OutputBuffer } from "./_output_buffer.ts";

import type { ShellTimings } from "./_shell_defaults.ts";

export { DEFAULT_SHELL_TIMINGS, type ShellTimings } from "./_shell_defaults.ts";

/** The size of the pieces output is appended in. */
const CHUNK_SIZE = 4096;

/** Reading output that keeps arriving from outside the group stops after this many drain periods. */
const DRAIN_CAP_FACTOR = 10;
/** How long a group may outlive its leader's exit before it counts as holding background work. */
const LEADER_GRACE_MS = 200;
/** Silence (in `drainTimeoutMs`) after which a pipe held outside the group is cut. */
const ESCAPED_IDLE_FACTOR = 5;

/** The line added to the output when reading stopped before the pipes closed. */
export const OUTPUT_CUT_NOTE = "[output cut: a background process kept the pipe open]";

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
  /** Where the output goes (bounded in memory, spilled to disk past the cap). */
  output: OutputBuffer;
  /** Called once when the shell is finalized (to drop it from registries). */
  onFinalized: (shell: ManagedShell) => void;
}

/**
 * A running or finished command: stdout and stderr are read concurrently to end of stream and
 * appended, decoded as UTF-8 with replacement characters, to one bounded buffer in arrival order.
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
  #buffer: OutputBuffer;
  #progress = 0;
  #cut = false;
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
    this.#buffer = init.output;
    try {
      init.process.closeStdin();
    } catch {
      // stdin already closed
    }
    this.#readerDone = Promise.all([
      this.#pump(init.process.stdout),
      this.#pump(init.process.stderr),
    ]).then(() => {}).finally(() => this.#buffer.close());
    this.#readerDone.catch(() => {});
  }

  /**
   * The combined output so far as held in memory (past the cap: head, a line naming the spill
   * file, tail), followed by {@link OUTPUT_CUT_NOTE} when reading stopped early.
   */
  get output(): string {
    const text = this.#buffer.text();
    return this.#cut ? `${text.trimEnd()}\n${OUTPUT_CUT_NOTE}` : text;
  }

  /** A slice of the output by absolute character offsets; see {@link OutputBuffer.slice}. */
  outputSlice(offset: number, limit: number | null): { text: string; next: number } {
    return this.#buffer.slice(offset, limit);
  }

  /** True when reading stopped before the pipes closed (a background process held them). */
  get outputCut(): boolean {
    return this.#cut;
  }

  /** The spill file holding the whole output, once it passed the in-memory cap. */
  get spillPath(): string | null {
    return this.#buffer.spillPath;
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
   * for exit; read the output to end of stream, cancelling readers only when a process outside
   * the group (an escaped descendant) holds a pipe silent for `drainTimeoutMs`; finalize.
   */
  terminate(): Promise<void> {
    this.#terminating ??= this.#terminate().finally(() => this.#finalize());
    return this.#terminating;
  }

  /**
   * Waits for the shell to exit and its output to be read to end of stream, then finalizes it
   * and returns the exit code. Descendants left in the group after the shell exits get
   * `drainTimeoutMs` to close the pipes and are then terminated (the output is marked cut when
   * they still held them); a reader failure terminates the shell and is rethrown.
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
    const { pollIntervalMs, drainTimeoutMs } = this.#timings;
    // The leader's exit can be seen just before its group is gone: give that a moment.
    if (this.process.isRunning()) {
      await _pollGone(this.process, pollIntervalMs, Math.min(LEADER_GRACE_MS, drainTimeoutMs));
    }
    if (this.process.isRunning()) {
      const deadline = Date.now() + drainTimeoutMs * DRAIN_CAP_FACTOR;
      let released: "fulfilled" | "rejected" | "timeout";
      do {
        const started = Date.now();
        released = await _settledWithin(this.#readerDone, drainTimeoutMs);
        if (released === "timeout") released = await _settledWithin(this.#readerDone, 0, true);
        // A timer that fired late means a busy event loop, not a pipe held open: wait again.
        if (released !== "timeout" || !_lagged(started, drainTimeoutMs)) break;
      } while (Date.now() < deadline);
      if (released === "timeout") this.#cut = true;
      await this.terminate();
      return this.returncode;
    }
    const drained = await this.#drain(ESCAPED_IDLE_FACTOR);
    if (drained === "rejected") {
      await this.terminate();
      await this.#readerDone;
    }
    if (drained === "timeout") await this.#cancelReaders();
    await this.#buffer.close();
    this.#finalize();
    return this.returncode;
  }

  async #terminate(): Promise<void> {
    const proc = this.process;
    const { pollIntervalMs, terminateTimeoutMs, drainTimeoutMs } = this.#timings;
    if (proc.isRunning()) {
      proc.signal({ kill: false });
      await _pollGone(proc, pollIntervalMs, terminateTimeoutMs);
      if (proc.isRunning()) {
        proc.signal({ kill: true });
        // KILL is asynchronous: wait (briefly) until the group's members are really gone.
        await _pollGone(proc, pollIntervalMs, drainTimeoutMs);
      }
    }
    await _settledWithin(proc.wait(), drainTimeoutMs);
    if (await this.#drain(ESCAPED_IDLE_FACTOR) === "timeout") await this.#cancelReaders();
    await this.#buffer.close();
  }

  /**
   * Waits for both readers to reach end of stream, once the group is gone (only a process that
   * left the group can still hold a pipe). Gives up ("timeout") only when no output arrived for
   * `idleFactor` × `drainTimeoutMs`, or output kept arriving for `DRAIN_CAP_FACTOR` ×
   * `drainTimeoutMs` (at least twice the silence).
   * The silence is long because a runtime under load may deliver a finished pipe's last reads
   * late (Deno with 1500 concurrent commands: over 1 s).
   */
  async #drain(idleFactor: number): Promise<"fulfilled" | "rejected" | "timeout"> {
    const idleMs = this.#timings.drainTimeoutMs * idleFactor;
    const cap = Math.max(idleMs * 2, this.#timings.drainTimeoutMs * DRAIN_CAP_FACTOR);
    const deadline = Date.now() + cap;
    for (;;) {
      const seen = this.#progress;
      const started = Date.now();
      let outcome = await _settledWithin(this.#readerDone, idleMs);
      // A busy event loop may run the timer before pending reads: let I/O run once more.
      if (outcome === "timeout") outcome = await _settledWithin(this.#readerDone, 0, true);
      if (outcome !== "timeout") return outcome;
      // Silence only counts when the timer fired on time (a late one means a busy event loop).
      const idle = this.#progress === seen && !_lagged(started, idleMs);
      if (idle || Date.now() >= deadline) return "timeout";
    }
  }

  async #pump(stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stream.getReader();
    this.#readers.push(reader);
    const decoder = new TextDecoder("utf-8");
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        this.#progress++;
        for (let at = 0; at < value.byteLength; at += CHUNK_SIZE) {
          const piece = at === 0 && value.byteLength <= CHUNK_SIZE
            ? value
            : value.subarray(at, at + CHUNK_SIZE);
          this.#buffer.append(decoder.decode(piece, { stream: true }), piece);
        }
        await this.#buffer.flush();
      }
      const tail = decoder.decode();
      if (tail !== "") this.#buffer.append(tail, new Uint8Array(0));
    } finally {
      reader.releaseLock();
    }
  }

  async #cancelReaders(): Promise<void> {
    this.#cut = true;
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

/** Polls until the group of `proc` is gone or `ms` passed. */
async function _pollGone(proc: Process, pollMs: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (proc.isRunning()) {
    const left = deadline - Date.now();
    if (left <= 0) return;
    await _sleep(Math.min(pollMs, left));
  }
}

/** True when a wait of `ms` begun at `started` ended well after it should have. */
function _lagged(started: number, ms: number): boolean {
  return Date.now() - started > ms * 1.5;
}

/** Waits up to `ms` (or, with `afterIo`, one I/O poll) for `promise` to settle; never rejects. */
async function _settledWithin(
  promise: Promise<unknown>,
  ms: number,
  afterIo = false,
): Promise<"fulfilled" | "rejected" | "timeout"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    if (afterIo) setImmediate(() => setImmediate(() => resolve("timeout")));
    else timer = setTimeout(() => resolve("timeout"), ms);
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
