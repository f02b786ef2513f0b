/**
 * The tape data the web console shows: a page of the store's tapes with their entry counts and
 * last activity (newest first), read from each tape's end, and one tape's entries,
 * optionally searched (`TapeQuery.query`).
 *
 * @module
 */
import { BubError } from "../../kernel/errors.ts";
import { SIDECAR_TAPE_MARKER } from "../../kernel/tape_context.ts";
import type { TapeEntry } from "../../tape/entry.ts";
import { tapeSessionId } from "../../tape/naming.ts";
import { TapeQuery } from "../../tape/query.ts";
import type { TapeStore } from "../../tape/store.ts";

/** One row of the tape list. */
export interface TapeSummary {
  /** The tape name. */
  name: string;
  /** The session whose tape it is, when the console knows it (else null). */
  session_id: string | null;
  /** The first thing said in it (a prompt or a comma command), at most 80 characters, or null. */
  title: string | null;
  /** How many entries it holds. */
  entries: number;
  /** The date of its newest entry, or null when empty. */
  last_activity: string | null;
  /** How many approval requests wait for a decision in it (0 when none). */
  waiting: number;
}

/** One page of the tape list. */
export interface TapePage {
  /** The tapes, newest activity first. */
  tapes: TapeSummary[];
  /** The `before` cursor of the next page, or null on the last page. */
  next: string | null;
}

/** Options of {@link tapeSummaries}. */
export interface TapeListOptions {
  /** Tapes per page, 1–500. Default 100. */
  limit?: number;
  /** The `next` cursor of the previous page. */
  before?: string | null;
  /** Session ids by tape name, for the tapes whose session the caller knows. */
  sessions?: ReadonlyMap<string, string>;
  /** Pending approval requests by tape name, for the names of the page shown. */
  waiting?: (names: readonly string[]) => Promise<ReadonlyMap<string, number>>;
}

function notFound(error: unknown): boolean {
  return BubError.isInstance(error) && (error as BubError).kind === "not_found";
}

/**
 * The newest entry of tape `name`: from the store's `lastEntry` (read from the end of the tape)
 * when it has one, else from after the last anchor, else from the whole tape.
 */
async function lastEntry(store: TapeStore, name: string): Promise<TapeEntry | undefined> {
  if (store.lastEntry) return (await store.lastEntry(name)) ?? undefined;
  try {
    const tail = await store.fetchAll(new TapeQuery(name, store).lastAnchor());
    if (tail.length) return tail.at(-1);
  } catch (error) {
    if (!notFound(error)) throw error;
  }
  return (await store.fetchAll(new TapeQuery(name, store))).at(-1);
}

const cursorOf = (row: TapeSummary): string => `${row.last_activity ?? ""}|${row.name}`;

function order(a: TapeSummary, b: TapeSummary): number {
  return (b.last_activity ?? "").localeCompare(a.last_activity ?? "") ||
    a.name.localeCompare(b.name);
}

function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) {
    throw new BubError("invalid_input", `limit must be an integer from 1 to 500, got ${limit}`);
  }
  return limit;
}

/**
 * A page of the store's tapes, newest activity first. A tape's entry count is the id of its
 * newest entry (stores number entries 1, 2, … per tape), so no tape is read in full.
 */
export async function tapeSummaries(
  store: TapeStore,
  options: TapeListOptions = {},
): Promise<TapePage> {
  const limit = pageLimit(options.limit);
  const names = (await store.listTapes()).filter((name) => !name.includes(SIDECAR_TAPE_MARKER));
  const rows: TapeSummary[] = [];
  // A few tapes at a time: the reads overlap without opening every file at once.
  for (let i = 0; i < names.length; i += 16) {
    const batch = names.slice(i, i + 16);
    const lasts = await Promise.all(batch.map((name) => lastEntry(store, name)));
    batch.forEach((name, j) =>
      rows.push({
        name,
        session_id: options.sessions?.get(name) ?? null,
        title: null,
        entries: lasts[j]?.id ?? 0,
        last_activity: lasts[j]?.date ?? null,
        waiting: 0,
      })
    );
  }
  rows.sort(order);
  let start = 0;
  if (options.before) {
    const split = options.before.indexOf("|");
    if (split < 0) throw new BubError("invalid_input", "before must be a cursor from `next`");
    const at: TapeSummary = {
      name: options.before.slice(split + 1),
      session_id: null,
      title: null,
      entries: 0,
      last_activity: options.before.slice(0, split) || null,
      waiting: 0,
    };
    start = rows.findIndex((row) => order(at, row) < 0);
    if (start < 0) start = rows.length;
  }
  const tapes = rows.slice(start, start + limit);
  // Titles and session ids only for the page shown: each is read from the start of its tape.
  const titles = await Promise.all(tapes.map((row) => titleOf(store, row.name)));
  const ids = await Promise.all(tapes.map((row) => row.session_id ?? sessionIdOf(store, row.name)));
  const waiting = await options.waiting?.(tapes.map((row) => row.name));
  tapes.forEach((row, i) => {
    row.title = titles[i] ?? null;
    row.session_id = ids[i] ?? null;
    row.waiting = waiting?.get(row.name) ?? 0;
  });
  const more = start + limit < rows.length;
  return { tapes, next: more && tapes.length ? cursorOf(tapes.at(-1)!) : null };
}

/** How many entries from a tape's start are read for its title. */
const TITLE_SCAN = 40;

/** The text of a prompt (a string, or the text parts of a multimodal prompt). */
export function promptText(prompt: unknown): string {
  if (typeof prompt === "string") return prompt;
  if (!Array.isArray(prompt)) return "";
  return prompt.map((part) => typeof part?.text === "string" ? part.text : "").join(" ");
}

/** The context line and date a channel message's prompt starts with (see build_prompt.ts). */
const CONTEXT_HEADER = /^[^\n]*\n---Date: [^\n]*---\n/;

/** A prompt's text without the context line and date a channel message starts with. */
export function withoutContextHeader(text: string): string {
  return text.replace(CONTEXT_HEADER, "");
}

/** The first prompt or comma command of a list of entries, on one line, at most 80 characters. */
export function titleFromEntries(entries: readonly TapeEntry[]): string | null {
  for (const entry of entries) {
    const payload = entry.payload as Record<string, unknown>;
    const data = (payload.data ?? {}) as Record<string, unknown>;
    let text = "";
    if (entry.kind === "event" && payload.name === "loop.start") text = promptText(data.prompt);
    else if (entry.kind === "event" && payload.name === "command") text = `,${data.raw ?? ""}`;
    else if (entry.kind === "message" && payload.role === "user") {
      text = promptText(payload.content);
    }
    text = withoutContextHeader(text).replace(/\s+/g, " ").trim();
    if (text) return text.length > 80 ? `${text.slice(0, 79)}\u2026` : text;
  }
  return null;
}

async function sessionIdOf(store: TapeStore, name: string): Promise<string | null> {
  try {
    return await tapeSessionId(store, name);
  } catch (error) {
    if (notFound(error)) return null;
    throw error;
  }
}

async function titleOf(store: TapeStore, name: string): Promise<string | null> {
  try {
    return titleFromEntries(await new TapeQuery(name, store).limit(TITLE_SCAN).all());
  } catch (error) {
    if (notFound(error)) return null;
    throw error;
  }
}

/** Throws `not_found` unless `name` is one of the store's tapes (not a sidecar tape). */
export async function requireTape(store: TapeStore, name: string): Promise<void> {
  if (name.includes(SIDECAR_TAPE_MARKER) || !(await store.listTapes()).includes(name)) {
    throw new BubError("not_found", `No tape named ${JSON.stringify(name)}`);
  }
}

/** A page of a session's conversation, oldest entry first. */
export interface HistoryPage {
  /** The entries, in tape order. */
  entries: TapeEntry[];
  /** The `before` cursor of the older page (an entry id), or null at the start of the tape. */
  next: number | null;
}

const TURN_START = (entry: TapeEntry): boolean =>
  entry.kind === "event" &&
  ((entry.payload as { name?: unknown }).name === "loop.start" ||
    (entry.payload as { name?: unknown }).name === "command");

/**
 * The last `limit` entries of tape `name` before entry id `before` (the newest when null), cut
 * forward to the first turn start in that window so that a page does not begin in the middle of a
 * turn (unless one turn fills the window); `dropLastTurn` leaves out the tape's last turn (the
 * event stream replays it). A tape that does not exist yet is an empty page.
 */
export async function tapeHistory(
  store: TapeStore,
  name: string,
  options: { before?: number | null; limit?: number; dropLastTurn?: boolean } = {},
): Promise<HistoryPage> {
  const limit = options.limit ?? 200;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new BubError("invalid_input", `limit must be an integer from 1 to 1000, got ${limit}`);
  }
  if (!(await store.listTapes()).includes(name)) return { entries: [], next: null };
  let all = await new TapeQuery(name, store).all();
  if (options.dropLastTurn) {
    const last = all.findLastIndex(TURN_START);
    if (last >= 0) all = all.slice(0, last);
  }
  const end = options.before == null
    ? all.length
    : all.findIndex((entry) => entry.id >= options.before!) < 0
    ? all.length
    : all.findIndex((entry) => entry.id >= options.before!);
  let start = Math.max(0, end - limit);
  if (start > 0) {
    const turn = all.slice(start, end).findIndex(TURN_START);
    if (turn > 0) start += turn;
  }
  return { entries: all.slice(start, end), next: start > 0 ? all[start]!.id : null };
}

/** The entries of tape `name`, only those matching `search` when given (case-insensitive). */
export async function tapeEntries(
  store: TapeStore,
  name: string,
  search?: string | null,
): Promise<TapeEntry[]> {
  await requireTape(store, name);
  let query = new TapeQuery(name, store);
  if (search) query = query.query(search);
  return await query.all();
}
