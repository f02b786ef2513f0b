/**
 * Fork journals of `FileTapeStore` (see `../fork_journal.ts`): one file per fork in the `forks`
 * folder of the tape directory, `forks/<tape>.jsonl.fork.<fork id>`: a header line
 * `{"fork", "tape", "owner", "created"}`, then the fork's entries as tape lines (ids 1..n), each
 * append flushed before it resolves. The folder holds only the journals of turns in progress (or
 * interrupted), so finding a tape's journals lists a few names, not every tape's file: a session's
 * first turn costs the same with 10 or 10,000 sessions in the directory. (Older versions kept
 * journals next to their tapes; `_legacy_journals.ts` moves those in.)
 *
 * A commit runs under the tape's lock: it appends `{"commit": {"offset", "length"}}` to the journal
 * (where the batch goes in the tape file and how long it is), flushes it, renames the journal to
 * `<tape>.jsonl.merging` (one fixed name per tape), writes the batch to the tape, flushes it and
 * removes the merging file. Every append to a tape first looks for that name (one `stat`): a
 * merging file left by a killed process is finished there, under the lock, before anything else
 * is written: the tape holds the whole batch (its size reaches offset + length: the merging file
 * goes) or part of it (cut back to the offset, and the file renamed back to its journal, whose
 * turn is then an interrupted one). So the tape gets none or all of a fork, once.
 *
 * @module
 */
import {
  closeSync,
  existsSync,
  fsync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { isRecord } from "../../_internal/object.ts";
import { ownerAlive, ownerTag, type PendingFork } from "../fork_journal.ts";
import type { TapeEntry } from "../entry.ts";
import { storedEntry } from "../store/_entry_text.ts";
import { datasyncFd, writeFdAll } from "./_fd.ts";
import { parseEntryLine } from "./_jsonl.ts";
import { errorCode } from "./_read.ts";

const ENCODER = new TextEncoder();

/** The folder of the fork journals in the tape directory. */
export const FORKS_FOLDER = "forks";

/** The journal file of `fork` on the tape whose file is `tapePath`. */
export function journalPath(tapePath: string, fork: string): string {
  return join(dirname(tapePath), FORKS_FOLDER, `${basename(tapePath)}.fork.${fork}`);
}

/** The merging file of the tape whose file is `tapePath`. */
export function mergingPath(tapePath: string): string {
  return `${tapePath}.merging`;
}

/** What a journal file holds. */
export interface JournalContent {
  /** The fork id (from the header; else from the name). */
  fork: string;
  /** The writer's owner tag. */
  owner: string;
  /** When it was made (ISO text; empty when unknown). */
  created: string;
  /** The entries, in order. */
  entries: TapeEntry[];
  /** The last commit record, or null. */
  commit: { offset: number; length: number } | null;
}

/** Parses a journal's text; a torn last line (a killed writer's) is left out. */
export function parseJournal(text: string, fork: string): JournalContent {
  const found: JournalContent = { fork, owner: "", created: "", entries: [], commit: null };
  const end = text.lastIndexOf("\n");
  for (const line of text.slice(0, end + 1).split("\n")) {
    if (!line.trim()) continue;
    if (line.startsWith('{"id"')) {
      const entry = parseEntryLine(line);
      if (entry) found.entries.push(entry);
      continue;
    }
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isRecord(record)) continue;
    if (typeof record.fork === "string") found.fork = record.fork;
    if (typeof record.owner === "string") found.owner = record.owner;
    if (typeof record.created === "string") found.created = record.created;
    const commit = record.commit;
    if (
      isRecord(commit) && typeof commit.offset === "number" && typeof commit.length === "number"
    ) {
      found.commit = { offset: commit.offset, length: commit.length };
    }
  }
  return found;
}

/** Reads the journal at `path`; null when it is missing. */
export function readJournal(path: string, fork: string): JournalContent | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return null;
    throw error;
  }
  return parseJournal(text, fork);
}

/** `fsync` of a directory (its names durable); quietly nothing where that is not supported. */
export async function syncDirectory(directory: string): Promise<void> {
  let fd: number;
  try {
    fd = openSync(directory, "r");
  } catch {
    return;
  }
  try {
    await new Promise<void>((resolve) => fsync(fd, () => resolve()));
  } finally {
    closeSync(fd);
  }
}

function _unlinkQuiet(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already (another writer finished the merge).
  }
}

interface _Open {
  fd: number;
  count: number;
}

/** The open journals of one store: appends keep the file open until it commits or is dropped. */
export class FileJournals {
  #open = new Map<string, _Open>();
  #durable: boolean;

  /** @param durable flush each append (and the directory when a journal is made) */
  constructor(durable: boolean) {
    this.#durable = durable;
  }

  /** Appends `entries` to the journal at `path` (made with its header when new), flushed. */
  async append(
    path: string,
    tape: string,
    fork: string,
    entries: readonly TapeEntry[],
  ): Promise<void> {
    let open = this.#open.get(path);
    let text = "";
    let made = false;
    let madeFolder = false;
    if (!open) {
      let fd: number;
      try {
        fd = openSync(path, "a", 0o600);
      } catch (error) {
        if (errorCode(error) !== "ENOENT") throw error;
        madeFolder = makeForksFolder(path);
        fd = openSync(path, "a", 0o600);
      }
      open = { fd, count: 0 };
      this.#open.set(path, open);
      made = true;
      text += `${
        JSON.stringify({ fork, tape, owner: ownerTag(), created: new Date().toISOString() })
      }\n`;
    }
    let id = open.count;
    for (const entry of entries) text += storedEntry(tape, entry, ++id).line;
    try {
      writeFdAll(open.fd, ENCODER.encode(text));
    } catch (error) {
      this.close(path);
      throw error;
    }
    open.count = id;
    if (!this.#durable) return;
    await datasyncFd(open.fd);
    if (made) await syncDirectory(dirname(path));
    if (madeFolder) await syncDirectory(dirname(dirname(path)));
  }

  /**
   * Records where the batch of the journal at `path` goes (`offset`, `length`) and renames it to
   * the tape's merging file; the caller holds the tape's lock.
   */
  async markMerging(path: string, merging: string, offset: number, length: number): Promise<void> {
    const line = ENCODER.encode(`${JSON.stringify({ commit: { offset, length } })}\n`);
    const open = this.#open.get(path);
    const fd = open?.fd ?? openSync(path, "a", 0o600);
    try {
      writeFdAll(fd, line);
      if (this.#durable) await datasyncFd(fd);
    } finally {
      if (!open) closeSync(fd);
    }
    renameSync(path, merging);
    if (!this.#durable) return;
    await syncDirectory(dirname(merging));
    await syncDirectory(dirname(path));
  }

  /** Closes the journal at `path` when it is open here. */
  close(path: string): void {
    const open = this.#open.get(path);
    if (!open) return;
    this.#open.delete(path);
    try {
      closeSync(open.fd);
    } catch {
      // closed already
    }
  }

  /** Closes and removes the journal at `path`. */
  discard(path: string): void {
    this.close(path);
    _unlinkQuiet(path);
  }

  /** Closes every open journal (the files stay). */
  closeAll(): void {
    for (const path of [...this.#open.keys()]) this.close(path);
  }
}

/**
 * Finishes a merge a killed process left at the tape whose file is `tapePath` (open as `fd`,
 * `size` bytes); the caller holds the tape's lock. Returns the file's size after: the same when
 * the batch is whole (the merging file is removed), else cut back to the batch's offset (the
 * merging file renamed back to its journal). `dropCache` runs when the file was cut.
 */
export function finishMerge(
  tapePath: string,
  fd: number,
  size: number,
  dropCache: () => void,
): number {
  const merging = mergingPath(tapePath);
  if (!existsSync(merging)) return size;
  const content = readJournal(merging, "");
  if (content === null) return size;
  const commit = content.commit;
  if (commit !== null && size >= commit.offset + commit.length) {
    _unlinkQuiet(merging);
    return size;
  }
  if (commit !== null && size > commit.offset) {
    ftruncateSync(fd, commit.offset);
    dropCache();
    size = commit.offset;
  }
  const fork = content.fork || `recovered-${Date.now()}`;
  const journal = journalPath(tapePath, fork);
  makeForksFolder(journal);
  renameSync(merging, journal);
  return size;
}

/** Makes the folder of the journal at `journal` when missing; true when it was made here. */
function makeForksFolder(journal: string): boolean {
  return mkdirSync(dirname(journal), { recursive: true, mode: 0o700 }) !== undefined;
}

/** The fork ids of the journals of the tape whose file is `tapePath`, from the forks folder's names. */
export function journalForks(names: readonly string[], tapePath: string): string[] {
  const prefix = `${basename(tapePath)}.fork.`;
  return names.filter((name) => name.startsWith(prefix)).map((name) => name.slice(prefix.length));
}

/** The journals of `tape` (whose file is `tapePath`) among the forks folder's `names`, oldest first. */
export function readJournals(
  names: readonly string[],
  tape: string,
  tapePath: string,
): PendingFork[] {
  const found: (PendingFork & { created: string })[] = [];
  for (const fork of journalForks(names, tapePath)) {
    const content = readJournal(journalPath(tapePath, fork), fork);
    if (content === null) continue;
    const { owner, created, entries } = content;
    found.push({ fork, tape, owner, alive: ownerAlive(owner, fork), entries, created });
  }
  found.sort((a, b) => a.created < b.created ? -1 : a.created > b.created ? 1 : 0);
  return found.map(({ created: _, ...fork }) => fork);
}
