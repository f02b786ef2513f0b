/**
 * {@link ManagedShell}: one command run by the shell runtime, with its combined output and the
 * exact termination and completion algorithms of the spec.
 *
 * @module
 */
import type { Process } from "../kernel/environment.ts";
import type { OutputBuffer } from "./_output_buffer.ts";

import type { ShellTimings } from "./_shell_defaults.ts";
import { lagged, pollGone, settledWithin } from "./_wait.ts";

export { DEFAULT_SHELL_TIMINGS, type ShellTimings } from "./_shell_defaults.ts";

/** The size of the pieces output is appended in. */
const CHUNK_SIZE = 4096;

/** Reading output that keeps arriving from outside the group stops after this many drain periods. */
const DRAIN_CAP_FACTOR = 10;
/** How long a group may outlive its leader's exit before it counts as holding background work. */
const LEADER_GRACE_MS = 200;
/** Silence (in `drainTimeoutMs`) after which a pipe held outside the group is cut. */
const ESCAPED_IDLE_FACTOR = 5;
/**
 * The longest wait (in `drainTimeoutMs`) for a silent pipe while other shells' pipes keep
 * delivering, i.e. while the runtime works through a backlog of reads.
 */
const BUSY_CAP_FACTOR = 60;

/**
 * Ends of stream seen on every shell's pipes (all managers): a pipe's silence proves nothing
 * while other pipes keep reaching their ends, i.e. while the runtime works through a backlog.
 * Deno with 1500 concurrent commands and the cores busy delivered a finished pipe's last read
 * 7-12 s after its process exited while other pipes ended all along, and the old 5 s silence
 * cut that output. (A background shell that keeps printing ends no pipe: it does not count.)
 */
let pipeEnds = 0;

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
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LocalEnvironment, type ManagedShell, ShellManager } from "@bub/core/environment";
 * const shells = new ShellManager();
 * const shell: ManagedShell = await shells.start({ command: "echo hi", environment: new LocalEnvironment() });
 * assert.equal(await shell.waitClosed(), 0);
 * assert.equal(shell.output, "hi\n");
 * ```
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
      await pollGone(this.process, pollIntervalMs, Math.min(LEADER_GRACE_MS, drainTimeoutMs));
    }
    if (this.process.isRunning()) {
      const deadline = Date.now() + drainTimeoutMs * DRAIN_CAP_FACTOR;
      let released: "fulfilled" | "rejected" | "timeout";
      do {
        const started = Date.now();
        released = await settledWithin(this.#readerDone, drainTimeoutMs);
        if (released === "timeout") released = await settledWithin(this.#readerDone, 0, true);
        // A timer that fired late means a busy event loop, not a pipe held open: wait again.
        if (released !== "timeout" || !lagged(started, drainTimeoutMs)) break;
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
      await pollGone(proc, pollIntervalMs, terminateTimeoutMs);
      if (proc.isRunning()) {
        proc.signal({ kill: true });
        // KILL is asynchronous: wait (briefly) until the group's members are really gone.
        await pollGone(proc, pollIntervalMs, drainTimeoutMs);
      }
    }
    await settledWithin(proc.wait(), drainTimeoutMs);
    if (await this.#drain(ESCAPED_IDLE_FACTOR) === "timeout") await this.#cancelReaders();
    await this.#buffer.close();
  }

  /**
   * Waits for both readers to reach end of stream, once the group is gone (only a process that
   * left the group can still hold a pipe). Gives up ("timeout") when no output arrived for
   * `idleFactor` × `drainTimeoutMs` while no other shell's pipe reached its end, when output
   * kept arriving for `DRAIN_CAP_FACTOR` × `drainTimeoutMs` (at least twice the silence), or
   * after `BUSY_CAP_FACTOR` × `drainTimeoutMs` in any case.
   * A runtime under load delivers a finished pipe's last reads late (see {@link pipeEnds}).
   */
  async #drain(idleFactor: number): Promise<"fulfilled" | "rejected" | "timeout"> {
    const { drainTimeoutMs } = this.#timings;
    const idleMs = drainTimeoutMs * idleFactor;
    const began = Date.now();
    const cap = Math.max(idleMs * 2, drainTimeoutMs * DRAIN_CAP_FACTOR);
    const busyCap = Math.max(cap, drainTimeoutMs * BUSY_CAP_FACTOR);
    for (;;) {
      const seen = this.#progress;
      const seenEnds = pipeEnds;
      const started = Date.now();
      let outcome = await settledWithin(this.#readerDone, idleMs);
      // A busy event loop may run the timer before pending reads: let I/O run once more.
      if (outcome === "timeout") outcome = await settledWithin(this.#readerDone, 0, true);
      if (outcome !== "timeout") return outcome;
      const waited = Date.now() - began;
      if (this.#progress !== seen) {
        if (waited >= cap) return "timeout";
        continue;
      }
      // Silence only counts when the timer fired on time (a late one means a busy event loop)
      // and no other pipe reached its end meanwhile.
      const othersEnded = pipeEnds !== seenEnds;
      if ((!lagged(started, idleMs) && !othersEnded) || waited >= busyCap) return "timeout";
    }
  }

  async #pump(stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stream.getReader();
    this.#readers.push(reader);
    const decoder = new TextDecoder("utf-8");
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          pipeEnds++;
          break;
        }
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
