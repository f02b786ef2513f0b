/**
 * The tape files a file store keeps open for appending while it is in use (closed by the store's
 * `close()`), so an append does not open and close its file: one `stat` of the path, under the
 * tape's lock, tells whether the held descriptor is still the tape's file (another process may
 * have reset it).
 *
 * @module
 */
import { closeSync, fstatSync, openSync, statSync } from "node:fs";
import type { SpareFile } from "./_spare_file.ts";

/** Descriptors held at most (least recently used closed first, never one in use). */
const HELD_FILES = 16;

interface _Held {
  fd: number;
  ino: number;
  busy: number;
}

/** An open tape file, its inode and its size now. */
export interface OpenFile {
  /** The descriptor (opened to append and read). */
  fd: number;
  /** Its inode. */
  ino: number;
  /** Its size. */
  size: number;
}

function _closeQuiet(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed: nothing to release.
  }
}

/** The open files of one store, by tape name. */
export class OpenFiles {
  #held = new Map<string, _Held>();

  /**
   * The open file of `tape` at `path` (created when missing), marked in use until
   * {@link release}. Call it holding the tape's lock.
   */
  acquire(tape: string, path: string, spare?: SpareFile): OpenFile {
    let held = this.#held.get(tape);
    // Nothing held: the open below creates or finds the file (no `stat` of the path first).
    const stats = held && statSync(path, { throwIfNoEntry: false });
    if (held && (stats === undefined || (Number(stats.ino ?? 0) || 0) !== held.ino)) {
      // Reset or replaced by another process: the held descriptor is another file now.
      if (held.busy === 0) _closeQuiet(held.fd);
      this.#held.delete(tape);
      held = undefined;
    }
    if (held && stats) {
      this.#held.delete(tape);
      this.#held.set(tape, held);
      held.busy++;
      return { fd: held.fd, ino: held.ino, size: stats.size };
    }
    // A new tape's file is the spare when one is ready (linked, not created, never over an
    // existing file, and already open: see `_spare_file.ts`).
    const fd = (spare?.ready ? spare.placeAt(path) : null) ?? openSync(path, "a+", 0o600);
    let opened;
    try {
      opened = fstatSync(fd);
    } catch (error) {
      _closeQuiet(fd);
      throw error;
    }
    held = { fd, ino: Number(opened.ino ?? 0) || 0, busy: 1 };
    this.#held.set(tape, held);
    return { fd, ino: held.ino, size: opened.size };
  }

  /** True when a file of `tape` is held open. */
  holds(tape: string): boolean {
    return this.#held.has(tape);
  }

  /**
   * Holds `fd` (inode `ino`), a file just made at `tape`'s path, as `tape`'s file, marked in use
   * until {@link release}; call it when none is held (see {@link holds}).
   */
  adopt(tape: string, fd: number, ino: number): void {
    this.#held.set(tape, { fd, ino, busy: 1 });
  }

  /** Ends a use of `tape`'s file; `failed` closes it (the next append opens it again). */
  release(tape: string, fd: number, failed = false): void {
    const held = this.#held.get(tape);
    if (!held || held.fd !== fd) {
      // Dropped while in use: this was its last user.
      _closeQuiet(fd);
      return;
    }
    held.busy--;
    if (failed && held.busy === 0) this.drop(tape);
  }

  /** Closes the file of `tape` (before it is reset); a file in use closes when released. */
  drop(tape: string): void {
    const held = this.#held.get(tape);
    if (!held) return;
    this.#held.delete(tape);
    if (held.busy === 0) _closeQuiet(held.fd);
  }

  /** Closes every file not in use (the others close when released). */
  closeAll(): void {
    for (const tape of [...this.#held.keys()]) this.drop(tape);
  }

  /**
   * Closes the least recently used files beyond the limit (not one in use). Separate from
   * {@link acquire} so a store runs it while a flush keeps it waiting anyway.
   */
  trim(): void {
    for (const [tape, held] of this.#held) {
      if (this.#held.size <= HELD_FILES) return;
      if (held.busy === 0) this.drop(tape);
    }
  }
}
