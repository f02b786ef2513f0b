/**
 * File-descriptor helpers of the file tape store: the calls that may take long (flushing, reading
 * a tape another process grew) run on the thread pool; a write is completed synchronously.
 *
 * @module
 */
import { fdatasync, read, writeSync } from "node:fs";

/** `fdatasync(fd)` on the thread pool. */
export function datasyncFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) =>
    fdatasync(fd, (error) => error ? reject(error) : resolve())
  );
}

/** Reads up to `length` bytes at file `position` into `bytes[offset..]`; resolves the count read. */
export function readFdAt(
  fd: number,
  bytes: Uint8Array,
  offset: number,
  length: number,
  position: number,
): Promise<number> {
  return new Promise((resolve, reject) =>
    read(
      fd,
      bytes,
      offset,
      length,
      position,
      (error, bytesRead) => error ? reject(error) : resolve(bytesRead),
    )
  );
}

/** Writes all of `bytes` at the file's current position (the end, for a file opened to append). */
export function writeFdAll(fd: number, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) written += writeSync(fd, bytes, written);
}
