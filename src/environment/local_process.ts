/**
 * {@link LocalProcess}: a host process started by {@link LocalEnvironment}, leading its own
 * process group so signals reach its descendants.
 *
 * @module
 */
import { type BubLogger as Logger, getLogger } from "../_internal/log.ts";
import { Process } from "../kernel/environment.ts";
import type { DriverChild, GroupSignal, ProcessDriver } from "./process_driver.ts";

const logger: Logger = getLogger(["bub", "environment"]);

/**
 * A host process in its own process group. `signal` and `isRunning` act on the whole group, so a
 * shell's background children are stopped with it and keep it "running" after the shell exits.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LocalEnvironment } from "./local_environment.ts";
 * const proc = await new LocalEnvironment().spawn("sleep 30");
 * proc.signal({ kill: false });
 * assert.ok((await proc.wait()) === 143);
 * ```
 */
export class LocalProcess extends Process {
  /** The process id, which is also its process group id. */
  readonly pid: number;
  /** Standard output. */
  readonly stdout: ReadableStream<Uint8Array>;
  /** Standard error. */
  readonly stderr: ReadableStream<Uint8Array>;
  #child: DriverChild;
  #driver: ProcessDriver;
  #returncode: number | null = null;
  #groupGone = false;
  #exited: Promise<number>;

  /**
   * Wraps a child started by a driver.
   *
   * @param child the started child, from a {@link ProcessDriver}
   * @param driver the driver that started it, used to signal its group
   */
  constructor(child: DriverChild, driver: ProcessDriver) {
    super();
    this.#child = child;
    this.#driver = driver;
    this.pid = child.pid;
    this.stdout = child.stdout;
    this.stderr = child.stderr;
    this.#exited = child.exited.then((code) => {
      this.#returncode = code;
      return code;
    });
  }

  /** The exit code (`128 + n` when ended by signal n), or null while the leader runs. */
  get returncode(): number | null {
    return this.#returncode;
  }

  /** Resolves with the exit code once the leader exits, even while descendants hold its pipes. */
  wait(): Promise<number> {
    return this.#exited;
  }

  /** Writes to standard input and resolves once written. */
  writeStdin(data: Uint8Array): Promise<void> {
    return this.#child.writeStdin(data);
  }

  /** Closes standard input; the process reads end-of-file. */
  closeStdin(): void {
    this.#child.closeStdin();
  }

  /** Sends TERM (or KILL with `{ kill: true }`) to the process group; never throws when it is gone. */
  signal(opts: { kill: boolean }): void {
    this.#send(opts.kill ? "SIGKILL" : "SIGTERM");
  }

  /** True while any process of the group exists (probed with signal 0); permission denied → true. */
  override isRunning(): boolean {
    return this.#send(0);
  }

  /** Returns false once the group is known to be gone (it is then never signalled again). */
  #send(signal: GroupSignal): boolean {
    if (this.#groupGone) return false;
    const outcome = this.#driver.signalGroup(this.pid, signal);
    if (outcome === "gone") {
      this.#groupGone = true;
      return false;
    }
    if (outcome === "denied" && signal !== 0) {
      logger.warn("Cannot send {signal} to process group {pgid}: permission denied", {
        signal,
        pgid: this.pid,
      });
    }
    return true;
  }
}
