/**
 * The write side of `FileTapeStore`: one batch appended to a tape's file under its lock.
 *
 * @module
 */
import { readSync } from "node:fs";
import { datasyncFd, writeFdAll } from "./_fd.ts";
import { absorbWritten, type FileCaches } from "./_file_cache.ts";
import { storedEntry } from "./_entry_text.ts";
import type { OpenFiles } from "./_open_files.ts";
import type { SpareFile } from "./_spare_file.ts";
import type { TapeEntry } from "./entry.ts";

const ENCODER = new TextEncoder();

/** Where a batch goes: the store's open files, caches and spare file, and whether to flush. */
export interface BatchTarget {
  tape: string;
  path: string;
  files: OpenFiles;
  cache: FileCaches;
  spare: SpareFile;
  durable: boolean;
}

/**
 * Appends `entries` (checked copies, ids unset) to the tape's file; the caller holds the tape's
 * lock. Catches up with the file, assigns the next ids, writes the batch in one write and flushes
 * it when durable. The file stays open between appends (see `_open_files.ts`); `stat`, the
 * last-byte check and the write are synchronous calls (each asynchronous one costs a thread-pool
 * round trip); the flush and catch-up reads stay async.
 */
export async function appendBatch(target: BatchTarget, entries: TapeEntry[]): Promise<void> {
  const { tape, files, cache: caches, spare } = target;
  const { fd, ino, size: found } = files.acquire(tape, target.path, spare);
  let failed = true;
  try {
    let size = found;
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
    // The same text goes to the file and (already parsed) to the cache: nothing is re-read.
    let text = "";
    const stored = entries.map((entry) => {
      const { copy, line } = storedEntry(tape, entry, ++id);
      text += line;
      return copy;
    });
    const bytes = ENCODER.encode(text);
    writeFdAll(fd, bytes);
    if (target.durable) {
      const flushed = datasyncFd(fd);
      // The main thread only waits for the flush: the least recently used descriptor is closed
      // meanwhile; the next new tape's file is made after the caller goes on (`_spare_file.ts`).
      files.trim();
      await flushed;
      spare.refillSoon();
    } else {
      files.trim();
    }
    absorbWritten(cache, stored, bytes.length);
    failed = false;
  } finally {
    files.release(tape, fd, failed);
  }
}
