/**
 * Private: {@link OutputBuffer}, the bounded memory of a shell's combined output. Up to
 * `maxBytes` stay in memory as a head and a tail; once the output grows past the cap, all of it
 * streams to a spill file on disk (never joined into one string) and the middle is dropped from
 * memory.
 *
 * @module
 */
import { closeSync, openSync, write } from "node:fs";
import { withCommas } from "../_internal/text.ts";

import { checkOutputMaxBytes } from "./_shell_defaults.ts";

export { checkOutputMaxBytes, DEFAULT_OUTPUT_MAX_BYTES } from "./_shell_defaults.ts";

interface _Piece {
  text: string;
  bytes: number;
}

/**
 * A head of `maxBytes / 2` and a ring of the latest `maxBytes / 2` bytes of output, plus a spill
 * file holding everything once the cap is passed. Character offsets are absolute (UTF-16 units
 * of the whole output, as `String.length` counts).
 */
export class OutputBuffer {
  #headMax: number;
  #tailMax: number;
  #spillPath: () => string;
  #head: _Piece[] = [];
  #headBytes = 0;
  #headChars = 0;
  #tail: _Piece[] = [];
  #tailAt = 0;
  #tailBytes = 0;
  #tailChars = 0;
  #droppedBytes = 0;
  #droppedChars = 0;
  #overflowed = false;
  #fd: number | null = null;
  #path: string | null = null;
  #spillError: string | null = null;
  #pending: Uint8Array[] = [];
  #writing: Promise<void> = Promise.resolve();
  #joined: string | null = "";

  /**
   * Creates an empty buffer.
   *
   * @param maxBytes the in-memory cap (half head, half tail)
   * @param spillPath returns the path of the spill file, called once when the cap is passed
   */
  constructor(maxBytes: number, spillPath: () => string) {
    this.#headMax = Math.floor(checkOutputMaxBytes(maxBytes) / 2);
    this.#tailMax = maxBytes - this.#headMax;
    this.#spillPath = spillPath;
  }

  /** Bytes of output seen so far. */
  get totalBytes(): number {
    return this.#headBytes + this.#droppedBytes + this.#tailBytes;
  }

  /** The spill file, once the output passed the cap (null before, or when it failed to open). */
  get spillPath(): string | null {
    return this.#path;
  }

  /** Appends `text`, decoded from `raw`, in arrival order. Call {@link flush} after each read. */
  append(text: string, raw: Uint8Array): void {
    this.#joined = null;
    const piece = { text, bytes: raw.byteLength };
    if (!this.#overflowed) {
      if (this.#headBytes + piece.bytes <= this.#headMax + this.#tailMax) {
        this.#head.push(piece);
        this.#headBytes += piece.bytes;
        this.#headChars += text.length;
        return;
      }
      this.#overflow(piece, raw);
    } else {
      if (this.#fd !== null) this.#pending.push(raw);
      this.#tail.push(piece);
      this.#tailBytes += piece.bytes;
      this.#tailChars += text.length;
    }
    while (this.#tailBytes - this.#tail[this.#tailAt]!.bytes >= this.#tailMax) {
      this.#drop(this.#tail[this.#tailAt++]!);
    }
    if (this.#tailBytes > this.#tailMax) {
      const front = this.#tail[this.#tailAt]!;
      const [dropped, kept] = _split(front, this.#tailBytes - this.#tailMax);
      this.#tail[this.#tailAt] = kept;
      this.#drop(dropped);
    }
    if (this.#tailAt > 1024 && this.#tailAt * 2 > this.#tail.length) {
      this.#tail = this.#tail.slice(this.#tailAt);
      this.#tailAt = 0;
    }
  }

  #drop(piece: _Piece): void {
    this.#tailBytes -= piece.bytes;
    this.#tailChars -= piece.text.length;
    this.#droppedBytes += piece.bytes;
    this.#droppedChars += piece.text.length;
  }

  /** Writes what {@link append} queued to the spill file; readers await it (backpressure). */
  flush(): Promise<void> {
    if (this.#pending.length === 0) return this.#writing;
    const parts = this.#pending;
    this.#pending = [];
    this.#writing = this.#writing.then(() => this.#write(_concat(parts)));
    return this.#writing;
  }

  /** Waits for pending writes and closes the spill file. Idempotent; never throws. */
  async close(): Promise<void> {
    await this.flush();
    if (this.#fd !== null) {
      const fd = this.#fd;
      this.#fd = null;
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
    }
  }

  /** The output held in memory: the head, a line naming the spill file, the tail. */
  text(): string {
    if (this.#joined !== null) return this.#joined;
    const head = this.#head.map((p) => p.text).join("");
    if (!this.#overflowed) return this.#joined = head;
    const tail = this.#tail.slice(this.#tailAt).map((p) => p.text).join("");
    return this.#joined = head + this.#marker() + tail;
  }

  /**
   * The slice of absolute character offsets `[start, end)` (end null: to the end) as held in
   * memory; a range crossing the dropped middle carries the marker. `next` is the absolute
   * offset after the slice.
   */
  slice(start: number, limit: number | null): { text: string; next: number } {
    const view = this.text();
    const markerEnd = this.#overflowed ? view.length - this.#tailChars : this.#headChars;
    const tailStart = this.#headChars + this.#droppedChars;
    const toView = (at: number): number =>
      at <= this.#headChars ? at : at < tailStart ? this.#headChars : at - tailStart + markerEnd;
    const from = toView(Math.max(0, start));
    const to = limit === null ? view.length : Math.min(view.length, from + Math.max(0, limit));
    const next = to <= this.#headChars
      ? to
      : to <= markerEnd
      ? tailStart
      : to - markerEnd + tailStart;
    return { text: view.slice(from, to), next };
  }

  #marker(): string {
    const omitted = withCommas(this.#droppedBytes);
    const where = this.#spillError !== null
      ? `the spill file ${this.#path ?? ""} failed: ${this.#spillError}`
      : `the full output (${withCommas(this.totalBytes)} bytes) is in ${this.#path}`;
    return `\n...[output truncated: ${omitted} bytes omitted; ${where}]...\n`;
  }

  /**
   * Opens the spill file with the output so far, then splits it and `piece` (decoded from
   * `raw`) into the head and the tail.
   */
  #overflow(piece: _Piece, raw: Uint8Array): void {
    this.#overflowed = true;
    const head = [...this.#head, piece];
    const written = this.#head.map((p) => p.text).join("");
    this.#head = [];
    this.#headBytes = 0;
    this.#headChars = 0;
    for (const whole of head) {
      let piece = whole;
      const room = this.#headMax - this.#headBytes;
      if (this.#tail.length === 0 && room > 0) {
        const [first, rest] = piece.bytes <= room ? [piece, null] : _split(piece, room);
        this.#head.push(first);
        this.#headBytes += first.bytes;
        this.#headChars += first.text.length;
        if (rest === null) continue;
        piece = rest;
      }
      this.#tail.push(piece);
      this.#tailBytes += piece.bytes;
      this.#tailChars += piece.text.length;
    }
    try {
      const path = this.#spillPath();
      this.#fd = openSync(path, "wx", 0o600);
      this.#path = path;
      this.#pending.push(new TextEncoder().encode(written), raw);
    } catch (error) {
      this.#spillError = error instanceof Error ? error.message : String(error);
    }
  }

  async #write(data: Uint8Array): Promise<void> {
    let at = 0;
    while (at < data.byteLength && this.#fd !== null && this.#spillError === null) {
      try {
        at += await _write(this.#fd, data.subarray(at));
      } catch (error) {
        this.#spillError = `writing failed: ${error instanceof Error ? error.message : error}`;
      }
    }
  }
}

/** Splits `piece` after about `bytes` UTF-8 bytes (whole characters; raw sizes stay summed). */
function _split(piece: _Piece, bytes: number): [_Piece, _Piece] {
  const { read, written } = new TextEncoder().encodeInto(piece.text, new Uint8Array(bytes));
  const taken = Math.min(piece.bytes, written);
  return [
    { text: piece.text.slice(0, read), bytes: taken },
    { text: piece.text.slice(read), bytes: piece.bytes - taken },
  ];
}

function _write(fd: number, data: Uint8Array): Promise<number> {
  return new Promise((resolve, reject) => {
    write(fd, data, 0, data.byteLength, null, (error, written) => {
      if (error) reject(error);
      else resolve(written);
    });
  });
}

function _concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}
