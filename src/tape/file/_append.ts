/**
 * The write side of `FileTapeStore`: one batch appended to a tape's file under its lock, flushed
 * after the lock is released.
 *
 * @module
 */
import { ftruncateSync, readSync } from "node:fs";
import { datasyncFd, writeFdAll } from "./_fd.ts";
import { finishMerge } from "./_journal.ts";
import { absorbWritten, emptyCache, type FileCaches } from "./_cache.ts";
import { storedEntry } from "../store/_entry_text.ts";
import { errorCode } from "./_read.ts";
import { withFileLock } from "./_lock.ts";
import type { LockTemplate } from "./_lock_template.ts";
import type { OpenFiles } from "./_open_files.ts";
import type { SpareFile } from "./_spare_file.ts";
import type { TapeEntry } from "../entry.ts";

const ENCODER = new TextEncoder();

/** Where a batch goes: the store's open files, caches and spare file, and whether to flush. */
export interface BatchTarget {
  tape: string;
  path: string;
  files: OpenFiles;
  cache: FileCaches;
  spare: SpareFile;
  durable: boolean;
  /** A fork's commit (see `_journal.ts`): told where the batch goes before it is written. */
  merge?: BatchMerge;
  /**
   * A compare-and-swap: the batch is written only when the tape's newest id is this one (checked
   * under the lock, after catching up with the file); else nothing is written.
   */
  lastId?: number;
}

/** The journal side of a batch that commits a fork. */
export interface BatchMerge {
  /** Records the batch's `offset` and `length` and marks the journal merging (lock held). */
  before(offset: number, length: number): Promise<void>;
  /** The write failed (the file was cut back): the journal is a journal again. */
  failed(): void;
}

/** An entry of a batch: its stored copy and line, numbered as the first entries of a tape. */
export interface PreparedEntry {
  /** The stored copy (its text kept, so renumbering it costs no serialisation). */
  copy: TapeEntry;
  /** Its line with that id. */
  line: string;
}

/**
 * Checks and copies `entries` (serialised once) as the batch of a tape: numbered from 1, as a
 * new tape's file holds them (`publishNewTape`); `writeBatch` renumbers them under the lock.
 *
 * @throws TypeError when an entry is invalid or cannot be serialised
 */
export function prepareBatch(tape: string, entries: readonly unknown[]): PreparedEntry[] {
  return entries.map((entry, i) => storedEntry(tape, entry, i + 1, true));
}

/** A batch written to its file: `flushed` settles when it is on the disk (await it). */
export interface WrittenBatch {
  /** Resolves once the batch is flushed (at once when not durable); rejects when that fails. */
  flushed: Promise<void>;
}

/**
 * Writes `entries` (see {@link prepareBatch}) to the tape's file; the caller holds the tape's
 * lock. Catches up with the file, assigns the next ids and writes the batch in one write; its
 * flush is started and left to run after the caller releases the lock. The lock orders writes and
 * ids, not flushes: a writer taking it next finds the batch in the file (written), and its own
 * flush writes this one too. So the lock's release overlaps the flush instead of following it.
 * The file stays open between appends (see `_open_files.ts`); `stat`, the last-byte check and the
 * write are synchronous calls (each asynchronous one costs a thread-pool round trip); the flush
 * and catch-up reads stay async. The caller keeps the tape's in-process mutex until `flushed`
 * settles (the file is released then).
 */
export async function writeBatch(
  target: BatchTarget,
  entries: readonly PreparedEntry[],
): Promise<WrittenBatch | null> {
  const { tape, files, cache: caches } = target;
  const { fd, ino, size: found } = files.acquire(tape, target.path, target.spare);
  try {
    // A fork's merge a killed process left half done is finished (or undone) first.
    let size = finishMerge(target.path, fd, found, () => caches.delete(tape));
    const before = size;
    const known = caches.get(tape);
    // A cache that ends at the end of this file ends on a newline: no need to look.
    if (size > 0 && !(known && known.ino === ino && known.offset === size)) {
      const last = new Uint8Array(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) {
        // A torn line from a killed writer: terminate it so it stays a (skipped) line of its own.
        writeFdAll(fd, ENCODER.encode("\n"));
        size += 1;
      }
    }
    const cache = await caches.catchUp(tape, fd, size, ino, null);
    let id = cache.entries[cache.entries.length - 1]?.id ?? 0;
    if (target.lastId !== undefined && id !== target.lastId) {
      // Another append came first: nothing is written (the caller's compare-and-swap fails).
      files.release(tape, fd);
      return null;
    }
    // The same text goes to the file and (already parsed) to the cache: nothing is re-read.
    let text = "";
    const stored = entries.map((entry) => {
      const { copy, line } = storedEntry(tape, entry.copy, ++id);
      text += line;
      return copy;
    });
    const bytes = ENCODER.encode(text);
    if (target.merge) await target.merge.before(size, bytes.length);
    try {
      writeFdAll(fd, bytes);
    } catch (error) {
      // A write cut short (a full disk): the file goes back to what it held, so it never keeps
      // part of a batch, and the cache (which may have counted a terminating newline) is dropped.
      _truncateQuiet(fd, before);
      caches.delete(tape);
      target.merge?.failed();
      throw error;
    }
    // Written: the cache holds the batch (what the file holds, flushed or not).
    return {
      flushed: flushWritten(target, fd, () => {
        absorbWritten(cache, stored, bytes.length);
        caches.grew(tape, cache);
      }),
    };
  } catch (error) {
    files.release(tape, fd, true);
    throw error;
  }
}

function _truncateQuiet(fd: number, size: number): void {
  try {
    ftruncateSync(fd, size);
  } catch {
    // The torn line stays: readers skip it and the next append terminates it.
  }
}

/**
 * Makes a new tape's file from the store's spare holding the batch (`SpareFile.publish`), without
 * the tape's lock: the file appears at its path whole, with ids from 1, or not at all (a file is
 * there: null, and the caller appends under the lock). Linking is as exclusive as the lock's
 * create, and a writer holding the lock reads the file's size after opening it (every version
 * does), so it finds this batch there or made the file first. Tried only when the store holds
 * neither a file nor a cache of the tape (one it read or wrote exists, most likely); a spare on
 * its way is waited for (`SpareFile.coming`). The flush runs as `writeBatch`'s does.
 */
export async function publishNewTape(
  target: BatchTarget,
  entries: readonly PreparedEntry[],
): Promise<WrittenBatch | null> {
  const { tape, files, cache: caches, spare } = target;
  if (files.holds(tape) || caches.has(tape)) return null;
  if (!spare.ready) await spare.coming();
  if (!spare.ready) return null;
  let text = "";
  for (const entry of entries) text += entry.line;
  const bytes = ENCODER.encode(text);
  const made = spare.publish(target.path, bytes);
  if (made === null) return null;
  files.adopt(tape, made.fd, made.ino);
  const cache = { ...emptyCache(), ino: made.ino };
  caches.set(tape, cache);
  const flushed = flushWritten(target, made.fd, () => {
    spare.removePublishedName();
    absorbWritten(cache, entries.map((entry) => entry.copy), bytes.length);
    caches.grew(tape, cache);
  });
  return { flushed };
}

/**
 * Flushes the batch just written to `fd` when durable, then releases the tape's file (closed when
 * the flush failed); `meanwhile` (the caller's bookkeeping) runs once the flush has started, so it
 * is not on the batch's path. The flush runs while the caller releases the lock; its failure is
 * handled here too, so a caller that fails before awaiting it leaves no unhandled rejection.
 */
function flushWritten(target: BatchTarget, fd: number, meanwhile: () => void): Promise<void> {
  const { tape, files, spare } = target;
  if (!target.durable) {
    meanwhile();
    files.trim();
    files.release(tape, fd);
    return Promise.resolve();
  }
  const flushed = datasyncFd(fd).then(
    () => {
      files.release(tape, fd);
      spare.refillSoon();
    },
    (error) => {
      files.release(tape, fd, true);
      throw error;
    },
  );
  flushed.catch(() => {});
  meanwhile();
  // The main thread only waits for the flush: the least recently used descriptor is closed
  // meanwhile; the next new tape's file is made after the caller goes on (`_spare_file.ts`).
  files.trim();
  return flushed;
}

const FULL_DISK: ReadonlySet<string> = new Set(["ENOSPC", "EDQUOT"]);

/** True for a write failure that space freed later cures (a full disk or quota). */
export function isFullDisk(error: unknown): boolean {
  return FULL_DISK.has(String(errorCode(error)));
}

/** How a batch that cannot be published from the spare takes the tape's lock file. */
export interface BatchLock {
  /** How long to wait for another process's lock, in ms. */
  timeoutMs: number;
  /** The store's lock holder file. */
  template: LockTemplate;
}

/**
 * Appends a prepared batch: a new tape is made whole from the spare with no lock
 * ({@link publishNewTape}), any other under the tape's lock file ({@link writeBatch}); then waits
 * for the flush, which runs after the lock's release. A full disk is rethrown as it is (nothing
 * of the batch stayed in the file; the store may retry it); any other failure goes to `fail` with
 * what failed. False when the target's `lastId` did not hold (nothing written).
 */
export async function appendBatch(
  target: BatchTarget,
  checked: PreparedEntry[],
  lock: BatchLock,
  fail: (action: string, error: unknown) => never,
): Promise<boolean> {
  let written: WrittenBatch | null;
  // A new tape's file is published whole only when the batch may start the tape.
  const publish = !target.merge && (target.lastId ?? 0) === 0;
  try {
    written = (publish ? await publishNewTape(target, checked) : null) ??
      await withFileLock(`${target.path}.lock`, () => writeBatch(target, checked), {
        what: `tape ${JSON.stringify(target.tape)}`,
        timeoutMs: lock.timeoutMs,
        template: lock.template,
      });
  } catch (error) {
    if (isFullDisk(error)) throw error;
    fail("append entry to", error);
  }
  if (written === null) return false;
  try {
    await written.flushed;
  } catch (error) {
    fail("flush entries of", error);
  }
  return true;
}
