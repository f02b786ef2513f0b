/**
 * A spare empty file for the next new tape: creating a file (a new inode) costs 0.1–0.6 ms on
 * ext4, several times a `link` under a new name. A durable store starts making the spare on the
 * thread pool once a batch is flushed (not awaited), and a new tape's first batch links it under
 * the tape's name instead of creating the file. The spare is `.bub-spare.<pid>.<random>`
 * in the tape folder (mode 0600 like a tape), removed when the store closes.
 *
 * The tape file is the same as a created one: empty, this process's owner and mode, linked under
 * the tape's name (exclusively: an existing name is never replaced) before the batch is written
 * and flushed; the flush commits the link with the data as it commits a create.
 *
 * @module
 */
import { linkSync, unlinkSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";

function _unlinkQuiet(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

/** The spare file of one store's folder. */
export class SpareFile {
  readonly #directory: string;
  #path: string | null = null;
  #making: Promise<void> | null = null;
  #generation = 0;

  /** @param directory the tape folder (links cannot cross file systems) */
  constructor(directory: string) {
    this.#directory = directory;
  }

  /** True when a spare is ready. */
  get ready(): boolean {
    return this.#path !== null;
  }

  /**
   * Puts the spare at `path` (a new tape's file, missing: an existing file is left alone); true
   * when it did, false when there was no spare or the link failed (the caller creates the file).
   */
  placeAt(path: string): boolean {
    const spare = this.#path;
    if (spare === null) return false;
    this.#path = null;
    try {
      linkSync(spare, path);
      return true;
    } catch {
      return false;
    } finally {
      _unlinkQuiet(spare);
    }
  }

  /**
   * Starts making a spare when there is none, on the thread pool and not awaited: call it after a
   * flush (a file created while one runs delays it by about the create's time), so the create
   * overlaps what follows the batch; the next new tape finds it ready, or is created as before.
   * The promise (never rejected) settles when the spare is made; callers need not wait for it.
   */
  refill(): Promise<void> {
    if (this.#path !== null) return Promise.resolve();
    if (this.#making !== null) return this.#making;
    const path = join(this.#directory, `.bub-spare.${process.pid}.${crypto.randomUUID()}`);
    const generation = this.#generation;
    this.#making = open(path, "wx", 0o600).then(
      (handle) =>
        handle.close().then(() => {
          if (generation === this.#generation) this.#path = path;
          else _unlinkQuiet(path); // Closed meanwhile.
        }),
      () => {},
    ).catch(() => _unlinkQuiet(path)).finally(() => {
      this.#making = null;
    });
    return this.#making;
  }

  /** Removes the spare (waiting for one being made); true when there was one. */
  async close(): Promise<boolean> {
    this.#generation++;
    const making = this.#making;
    if (making !== null) await making;
    const spare = this.#path;
    this.#path = null;
    if (spare !== null) _unlinkQuiet(spare);
    return spare !== null || making !== null;
  }
}
