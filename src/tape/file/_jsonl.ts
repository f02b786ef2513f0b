/**
 * The JSONL wire format of tape files (§5.6): one entry per line, keys `id, kind, payload,
 * meta, date` in that order, Python separators, non-ASCII raw.
 *
 * @module
 */
import { isRecord } from "../../_internal/object.ts";
import { isoFromMicros } from "../../_internal/utc_text.ts";
import { deepFreeze, pyDumps } from "../../_internal/json.ts";
import type { TapeEntry } from "../entry.ts";

/** One entry as a line (with the trailing newline). */
export function entryLine(entry: TapeEntry): string {
  return `${
    pyDumps({
      id: entry.id,
      kind: entry.kind,
      payload: entry.payload,
      meta: entry.meta,
      date: entry.date,
    })
  }\n`;
}

/**
 * Parses one line; null for blank or invalid lines (bad JSON, non-objects, non-integer id,
 * non-string kind, non-object payload). Non-object meta becomes `{}`; a legacy `timestamp`
 * (epoch seconds) gives the date; neither gives the epoch.
 */
export function parseEntryLine(line: string): TapeEntry | null {
  if (!line.trim()) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isRecord(raw)) return null;
  const { id, kind, payload } = raw;
  if (typeof id !== "number" || !Number.isInteger(id)) return null;
  if (typeof kind !== "string" || !isRecord(payload)) return null;
  const meta = isRecord(raw.meta) ? raw.meta : {};
  let date: string;
  if (typeof raw.date === "string") date = raw.date;
  else if (typeof raw.timestamp === "number" && Number.isFinite(raw.timestamp)) {
    date = isoFromMicros(Math.round(raw.timestamp * 1_000_000));
  } else date = isoFromMicros(0);
  return deepFreeze({ id, kind, payload, meta, date });
}

const NEWLINE = 0x0a;
const DECODER = new TextDecoder();

/**
 * Parses the complete lines of `bytes`; returns the entries and how many bytes they covered
 * (a trailing line without a newline is left for later: it may still be being written).
 */
export function parseCompleteLines(bytes: Uint8Array): { entries: TapeEntry[]; consumed: number } {
  const end = bytes.lastIndexOf(NEWLINE);
  if (end < 0) return { entries: [], consumed: 0 };
  const text = DECODER.decode(bytes.subarray(0, end));
  const entries: TapeEntry[] = [];
  for (const line of text.split("\n")) {
    const entry = parseEntryLine(line);
    if (entry) entries.push(entry);
  }
  return { entries, consumed: end + 1 };
}
