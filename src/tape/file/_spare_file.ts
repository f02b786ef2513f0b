/**
 * A spare empty file for the next new tape: creating a file (a new inode) costs 0.1–0.6 ms on
 * ext4, several times a `link` under a new name. A durable store asks for a spare once a batch is
 * flushed; it is made after the batch's caller has gone on (`setImmediate`: the turn reports
 * first), in one thread-pool job (an `open` with a callback), and a new tape's first batch is
 * written to it, which is then linked under the tape's name ({@link SpareFile.publish}: the tape
 * appears whole, and needs no lock) instead of creating the file; a new tape's batch that comes
 * before the spare is ready waits for it ({@link SpareFile.coming}) rather than create a file of
 * its own under the tape's lock: in a run of fresh sessions only the first new tape takes it.
 * The spare is `.bub-spare.<pid>.<random>` in the tape folder (mode 0600 like a tape), removed
 * when the store closes. It stays open from its create (read and append, as a tape file is
 * opened), so the tape is used through that descriptor: no open of the tape's path.
 *
 * The create is started in a `setImmediate` after a batch's lock is released, so it overlaps what
 * the process does next (idle time, or a model call's wait) rather than the turn that needs it;
 * the placements measured worse are in docs/decisions.md.
 *
 * The tape file is the same as a created one: this process's owner and mode, linked under the
 * tape's name exclusively (an existing name is never replaced; the spare is then emptied and stays
 * for the next new tape), and flushed after the link: the flush commits the link with the data as
 * it commits a create. {@link SpareFile.placeAt} links it empty (the caller writes under the
 * tape's lock).
 *
 * @module
 */
import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  linkSync,
  open,
  unlinkSync,
} from "node:fs";
import { writeFdAll } from "./_fd.ts";
import { join } from "node:path";
import process from "node:process";
import { clearImmediate, setImmediate } from "node:timers";

/** How a tape file is opened (`a+`: read and append), made exclusively (`wx`). */
const SPARE_FLAGS = constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL;

function _closeQuiet(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
}

function _inode(fd: number): number {
  try {
    return Number(fstatSync(fd).ino ?? 0) || 0;
  } catch {
    return 0;
  }
}

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
  #fd = -1;
  #ino = 0;
  #published: string | null = null;
  #making: Promise<void> | null = null;
  #scheduled: ReturnType<typeof setImmediate> | null = null;
  #generation = 0;
  #awaited = false;

  /** @param directory the tape folder (links cannot cross file systems) */
  constructor(directory: string) {
    this.#directory = directory;
  }

  /** True when a spare is ready. */
  get ready(): boolean {
    return this.#path !== null;
  }

  /**
   * Puts the spare at `path` when no file is there (`link` never replaces a name: no `stat` of
   * the path first); its descriptor, open to read and append, when it did (the caller owns it
   * then: no open of the path), null when there was no spare or the link failed (the caller opens
   * or creates the file). A spare not placed because the name exists stays.
   */
  placeAt(path: string): number | null {
    const spare = this.#path;
    if (spare === null) return null;
    try {
      linkSync(spare, path);
    } catch (error) {
      if ((error as { code?: string } | null)?.code === "EEXIST") return null;
      this.#drop(); // Removed (a cleanup that took this process for gone) or not linkable.
      return null;
    }
    const fd = this.#fd;
    this.#path = null;
    this.#fd = -1;
    this.#ino = 0;
    _unlinkQuiet(spare);
    return fd;
  }

  /**
   * Makes the spare, holding `bytes`, the file at `path` when no file is there: `bytes` are
   * written to the spare first, then it is linked under `path` (exclusively), so the file appears
   * with them, whole. Its descriptor (open to read and append, the caller owns it) and inode, or
   * null when there was no spare or a file is at `path` (the spare is emptied and stays) or the
   * link failed otherwise (the spare is dropped). A failed write drops the spare and throws. The
   * spare's own name is left for {@link removePublishedName} (once the caller started the flush:
   * a name left by a crash is a stray helper file, see `_stray_files.ts`).
   */
  publish(path: string, bytes: Uint8Array): { fd: number; ino: number } | null {
    const spare = this.#path;
    if (spare === null || this.#ino === 0) return null;
    const fd = this.#fd;
    try {
      writeFdAll(fd, bytes);
    } catch (error) {
      this.#drop();
      throw error;
    }
    try {
      linkSync(spare, path);
    } catch (error) {
      if ((error as { code?: string } | null)?.code !== "EEXIST") this.#drop();
      else {
        try {
          ftruncateSync(fd, 0); // Empty again: the spare stays for the next new tape.
        } catch {
          this.#drop();
        }
      }
      return null;
    }
    const ino = this.#ino;
    this.#path = null;
    this.#fd = -1;
    this.#ino = 0;
    this.#published = spare;
    return { fd, ino };
  }

  /** Removes the spare's own name left by {@link publish} (the tape keeps its file). */
  removePublishedName(): void {
    const name = this.#published;
    this.#published = null;
    if (name !== null) _unlinkQuiet(name);
  }

  #drop(): void {
    const spare = this.#path;
    if (spare === null) return;
    _closeQuiet(this.#fd);
    _unlinkQuiet(spare);
    this.#path = null;
    this.#fd = -1;
    this.#ino = 0;
  }

  /**
   * Makes a spare after the current task and its microtasks (what follows the batch goes first),
   * unless one is ready, being made or asked for: call it after a flush (a file created while one
   * runs delays it by about the create's time). The next new tape finds it ready, or is created
   * as before.
   */
  refillSoon(): void {
    if (this.#path !== null || this.#making !== null || this.#scheduled !== null) return;
    this.#scheduled = setImmediate(() => {
      this.#scheduled = null;
      void this.refill();
    });
  }

  /**
   * Waits for a spare that is asked for ({@link refillSoon}: its create is started now) or being
   * made; resolves at once when none is coming or another batch waits for it already (a spare
   * makes one new tape: the others would only wait, then take the lock). A new tape's batch
   * waits for it instead of creating a file of its own beside it (on the main thread, under the
   * tape's lock, while the spare's create runs too).
   */
  coming(): Promise<void> {
    if (this.#awaited) return Promise.resolve();
    if (this.#scheduled !== null) {
      clearImmediate(this.#scheduled);
      this.#scheduled = null;
      void this.refill();
    }
    if (this.#making === null) return Promise.resolve();
    this.#awaited = true;
    return this.#making.finally(() => (this.#awaited = false));
  }

  /**
   * Starts making a spare when there is none, in one thread-pool job; its descriptor is kept open
   * (opened as a tape file is, to read and append) and handed over with the spare. The promise
   * (never rejected) settles when the spare is made; callers need not wait for it.
   */
  refill(): Promise<void> {
    if (this.#path !== null) return Promise.resolve();
    if (this.#making !== null) return this.#making;
    const path = join(this.#directory, `.bub-spare.${process.pid}.${crypto.randomUUID()}`);
    const generation = this.#generation;
    this.#making = new Promise<void>((resolve) =>
      open(path, SPARE_FLAGS, 0o600, (error, fd) => {
        this.#making = null;
        if (!error) {
          if (generation === this.#generation) {
            this.#path = path;
            this.#fd = fd;
            this.#ino = _inode(fd); // 0 when unknown: then only placed empty, never published.
          } else {
            _closeQuiet(fd); // Closed meanwhile.
            _unlinkQuiet(path);
          }
        }
        resolve();
      })
    );
    return this.#making;
  }

  /** Removes the spare (waiting for one being made); true when there was one. */
  async close(): Promise<boolean> {
    if (this.#scheduled !== null) clearImmediate(this.#scheduled);
    this.#scheduled = null;
    this.#generation++;
    this.removePublishedName();
    const making = this.#making;
    if (making !== null) await making;
    const spare = this.#path;
    this.#drop();
    return spare !== null || making !== null;
  }
}
