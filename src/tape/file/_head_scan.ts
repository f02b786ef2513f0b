/**
 * Head reads of tape files: the first entries of some kinds (`kinds(...).limit(n)`, as in "does
 * this tape have an anchor yet?") read from the start of the file until found, so a cold store
 * answers them without parsing a long tape.
 *
 * @module
 */
import type { QuerySpec } from "../store/_evaluate.ts";
import { readFdAt } from "./_fd.ts";
import { parseCompleteLines } from "./_jsonl.ts";
import { TAIL_BLOCK } from "./_tail_scan.ts";
import type { TapeEntry } from "../entry.ts";

/** True for a query a head read answers: only kinds and a limit. */
export function isHeadQuery(query: QuerySpec): boolean {
  return query.limitCount !== null && query.kindList.length > 0 && !query.text &&
    !query.afterLast && query.afterAnchorName === null && query.betweenAnchorNames === null &&
    query.betweenDateRange === null;
}

/**
 * The first `query.limitCount` entries of `query.kindList` among the complete lines of the
 * first `size` bytes of the file, read forward in blocks until enough are found.
 */
export async function readHead(fd: number, size: number, query: QuerySpec): Promise<TapeEntry[]> {
  const kinds = new Set(query.kindList);
  const limit = query.limitCount ?? Number.MAX_SAFE_INTEGER;
  const out: TapeEntry[] = [];
  let position = 0;
  let pending: Uint8Array = new Uint8Array(0);
  while (position < size && out.length < limit) {
    const step = Math.min(TAIL_BLOCK, size - position);
    const bytes = new Uint8Array(pending.length + step);
    bytes.set(pending);
    let read = 0;
    while (read < step) {
      const count = await readFdAt(fd, bytes, pending.length + read, step - read, position + read);
      if (count === 0) break;
      read += count;
    }
    position += read;
    if (read < step) position = size; // The file shrank: what was read is all there is.
    const { entries, consumed } = parseCompleteLines(bytes.subarray(0, pending.length + read));
    for (const entry of entries) {
      if (kinds.has(entry.kind) && out.length < limit) out.push(entry);
    }
    pending = bytes.slice(consumed, pending.length + read);
  }
  return out;
}
