/**
 * The fork journal of `PostgresTapeStore` (see `../fork_journal.ts` and `_journal.ts` for the
 * statements): appends and commits fenced by a lease and retried at most once in effect, discards,
 * and the journals left (with whether their owner is alive).
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import type { TapeEntry } from "../entry.ts";
import { ownerAlive, ownerTag, type PendingFork, validateForkId } from "../fork_journal.ts";
import { validateTapeName } from "../entry.ts";
import type { KeyedMutex } from "../store/_mutex.ts";
import { appendColumns } from "./_append.ts";
import {
  pgJournalAppend,
  pgJournalCommit,
  pgJournalDiscard,
  pgJournalLanded,
  pgJournalPending,
} from "./_journal.ts";
import { leaseLost, type TapeLease } from "./_leases.ts";
import type { PgPool } from "./_pool.ts";

/** Appends to the journal of `fork` in one statement, fenced by `fence` when given. */
export async function journalAppend(
  pool: PgPool,
  tape: string,
  fork: string,
  entries: readonly TapeEntry[],
  fence: TapeLease | null,
): Promise<void> {
  validateForkId(fork);
  const columns = appendColumns(tape, entries);
  if (entries.length === 0) return;
  const batch = randomUUID();
  const owner = ownerTag();
  const inserted = await pool.retry(
    `journal fork ${fork} of tape ${JSON.stringify(tape)}`,
    async (sql, attempt) => {
      const options = { fence, batch };
      const n = await pgJournalAppend(sql, pool.tables, tape, fork, owner, columns, options);
      if (n > 0 || attempt === 1) return n;
      return await pgJournalLanded(sql, pool.tables, tape, fork, batch) ? entries.length : 0;
    },
  );
  if (fence && inserted === 0) throw leaseLost(tape, fence);
}

/** Moves the journal of `fork` (then `extra`) into the tape and deletes it in one statement. */
export async function journalCommit(
  pool: PgPool,
  appends: KeyedMutex,
  tape: string,
  fork: string,
  extra: readonly TapeEntry[],
  fence: TapeLease | null,
): Promise<void> {
  validateForkId(fork);
  const columns = appendColumns(tape, extra);
  const result = await appends.run(
    tape,
    () =>
      pool.retry(
        `commit fork ${fork} to tape ${JSON.stringify(tape)}`,
        (sql) => pgJournalCommit(sql, pool.tables, tape, fork, columns, fence),
      ),
  );
  if (fence && !result.held) throw leaseLost(tape, fence);
}

/** Deletes the journal of `fork`. */
export async function journalDiscard(pool: PgPool, tape: string, fork: string): Promise<void> {
  validateForkId(fork);
  await pool.retry(
    `discard fork ${fork} of tape ${JSON.stringify(tape)}`,
    (sql) => pgJournalDiscard(sql, pool.tables, tape, fork),
  );
}

/** The tapes with a journal, sorted. */
export async function journalTapes(pool: PgPool): Promise<string[]> {
  const rows = await pool.retry(
    "list forks",
    (sql) => sql.unsafe(`SELECT DISTINCT tape FROM ${pool.tables.forks} ORDER BY tape`),
  );
  return rows.map((row: Record<string, unknown>) => String(row.tape));
}

/** The journals of `tape` still there, oldest first. */
export async function journalPending(pool: PgPool, tape: string): Promise<PendingFork[]> {
  validateTapeName(tape);
  const forks = await pool.retry(
    `list forks of tape ${JSON.stringify(tape)}`,
    (sql) => pgJournalPending(sql, pool.tables, tape),
  );
  return forks.map((fork) => ({ ...fork, alive: ownerAlive(fork.owner, fork.fork) }));
}
