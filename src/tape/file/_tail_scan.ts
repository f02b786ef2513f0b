/**
 * Tail reads of tape files: find the last anchor line by reading the file backwards in blocks,
 * so a query about the end of a long tape does not parse everything before it, and tell which
 * queries a cache starting at such a line can answer.
 *
 * @module
 */
import { readFdAt } from "./_fd.ts";
import type { EntryView, QuerySpec } from "../store/_evaluate.ts";
import { parseEntryLine } from "./_jsonl.ts";
import type { TapeEntry } from "../entry.ts";

/** Bytes read per step when scanning backwards (also the smallest file worth a tail read). */
export const TAIL_BLOCK: number = 64 * 1024;

const NEWLINE = 0x0a;
// A line is decoded on its own: keep a byte-order mark that is not at the file start (a full
// read decodes the file as one text, where only the first one is dropped).
const LINE_DECODER = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * The anchor a tail read looks for to answer `query`: a name, `null` for any anchor, or
 * `undefined` when the query needs the whole tape. Mirrors the precedence of `anchorSlice`.
 */
export function tailTarget(query: QuerySpec): string | null | undefined {
  if (query.betweenAnchorNames) return query.betweenAnchorNames[0];
  if (query.afterLast) return null;
  if (query.afterAnchorName !== null) return query.afterAnchorName;
  return undefined;
}

/**
 * True when a cache holding the entries from byte `base` on answers `query` exactly as the whole
 * tape would: the anchor the query starts from is the last one of its name (or of any name), so
 * when the cache holds one, everything the query selects lies after it.
 */
export function coversQuery(
  view: EntryView & { readonly base: number },
  query: QuerySpec,
): boolean {
  if (view.base === 0) return true;
  const target = tailTarget(query);
  if (target === undefined) return false;
  if (target === null) return view.anchors.length > 0;
  return view.anchors.some((pos) => view.entries[pos]?.payload.name === target);
}

async function _read(fd: number, position: number, length: number): Promise<Uint8Array> {
  const bytes = new Uint8Array(length);
  let read = 0;
  while (read < length) {
    const count = await readFdAt(fd, bytes, read, length - read, position + read);
    if (count === 0) break;
    read += count;
  }
  return bytes.subarray(0, read);
}

function _concat(head: Uint8Array, tail: Uint8Array): Uint8Array {
  if (tail.length === 0) return head;
  const out = new Uint8Array(head.length + tail.length);
  out.set(head);
  out.set(tail, head.length);
  return out;
}

/**
 * The complete lines (without their newline) among the first `size` bytes of the file, last
 * first, with the byte offset where each starts. Bytes after the last newline (a line still
 * being written, or torn by a killed writer) are not a line.
 */
async function* _linesBackward(
  fd: number,
  size: number,
): AsyncGenerator<{ offset: number; bytes: Uint8Array }> {
  let position = size;
  // Bytes from `position` up to the start of the last line yielded (or to `size`).
  let pending: Uint8Array = new Uint8Array(0);
  let terminated = false;
  while (position > 0) {
    // Grow the step with a long pending line, so copying it stays linear in its length.
    const step = Math.min(position, Math.max(TAIL_BLOCK, pending.length));
    const block = await _read(fd, position - step, step);
    if (block.length < step) return; // The file shrank under us: the caller re-reads it.
    position -= step;
    const bytes = _concat(block, pending);
    let end = bytes.length; // One past the newline ending the next line.
    if (!terminated) {
      end = bytes.lastIndexOf(NEWLINE) + 1;
      if (end === 0) {
        pending = bytes;
        continue;
      }
      terminated = true;
    }
    for (;;) {
      const start = end >= 2 ? bytes.lastIndexOf(NEWLINE, end - 2) + 1 : 0;
      if (start === 0 && position > 0) break;
      yield { offset: position + start, bytes: bytes.subarray(start, end - 1) };
      if (start === 0) return;
      end = start;
    }
    pending = bytes.subarray(0, end);
  }
}

/**
 * The byte offset of the last complete line of the first `size` bytes that holds a valid
 * `anchor` entry (named `name` unless it is null), or null when there is none. Lines are parsed
 * as a full read parses them; only lines that cannot hold an anchor (neither the word nor a
 * `\u` escape that could spell it) are skipped unparsed.
 */
export async function findLastAnchor(
  fd: number,
  size: number,
  name: string | null,
): Promise<number | null> {
  for await (const { offset, bytes } of _linesBackward(fd, size)) {
    let text = LINE_DECODER.decode(bytes);
    if (!text.includes("anchor") && !text.includes("\\u")) continue;
    if (offset === 0 && text.startsWith("\uFEFF")) text = text.slice(1);
    const entry = parseEntryLine(text);
    if (entry?.kind === "anchor" && (name === null || entry.payload.name === name)) return offset;
  }
  return null;
}

/**
 * Adds to `found` the last valid `event` entry of each name of `names` not in it yet, among the
 * complete lines of the first `size` bytes, reading backwards and stopping once every name is
 * found. Lines that cannot hold one of the names (neither its JSON form nor a `\u` escape
 * that could spell it) are skipped unparsed.
 */
export async function findLastEvents(
  fd: number,
  size: number,
  names: ReadonlySet<string>,
  found: Map<string, TapeEntry>,
): Promise<void> {
  const needles = new Map([...names].map((name) => [name, JSON.stringify(name).slice(1, -1)]));
  for await (const { offset, bytes } of _linesBackward(fd, size)) {
    if (found.size >= names.size) return;
    let text = LINE_DECODER.decode(bytes);
    if (!text.includes("\\u")) {
      let candidate = false;
      for (const [name, needle] of needles) {
        if (!found.has(name) && text.includes(needle)) candidate = true;
      }
      if (!candidate) continue;
    }
    if (offset === 0 && text.startsWith("\uFEFF")) text = text.slice(1);
    const entry = parseEntryLine(text);
    const name = entry?.kind === "event" ? entry.payload.name : undefined;
    if (typeof name === "string" && names.has(name) && !found.has(name)) found.set(name, entry!);
  }
}

/** The last valid entry among the complete lines of the first `size` bytes, or null. */
export async function findLastEntry(fd: number, size: number): Promise<TapeEntry | null> {
  for await (const { offset, bytes } of _linesBackward(fd, size)) {
    let text = LINE_DECODER.decode(bytes);
    if (offset === 0 && text.startsWith("\uFEFF")) text = text.slice(1);
    const entry = parseEntryLine(text);
    if (entry) return entry;
  }
  return null;
}
