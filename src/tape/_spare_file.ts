/**
 * A spare empty file for the next new tape: creating a file (a new inode) costs 0.1–0.4 ms on
 * ext4, several times a `link` under a new name. A durable store makes the spare while its flush
 * runs on the thread pool (the main thread only waits then), and a new tape's first batch links
 * it under the tape's name instead of creating the file. The spare is `.bub-spare.<pid>.<random>`
 * in the tape folder (mode 0600 like a tape), removed when the store closes.
 *
 * The tape file is the same as a created one: empty, this process's owner and mode, linked under
 * the tape's name (exclusively: an existing name is never replaced) before the batch is written
 * and flushed; the flush commits the link with the data as it commits a create.
 *
 * @module
 */
import { closeSync, linkSync, openSync, unlinkSync } from "node:fs";
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

  /** Makes a spare when there is none (quietly: without one, the next new tape is created). */
  prepare(): void {
    if (this.#path !== null) return;
    const path = join(this.#directory, `.bub-spare.${process.pid}.${crypto.randomUUID()}`);
    try {
      closeSync(openSync(path, "wx", 0o600));
      this.#path = path;
    } catch {
      _unlinkQuiet(path);
    }
  }

  /** Removes the spare; true when there was one. */
  close(): boolean {
    const spare = this.#path;
    this.#path = null;
    if (spare !== null) _unlinkQuiet(spare);
    return spare !== null;
  }
}
