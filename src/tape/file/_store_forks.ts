/**
 * The fork journal of `FileTapeStore` (see `../fork_journal.ts` and `./_journal.ts`): appending
 * to a fork's journal, committing it to its tape as one batch (marking the merge so that a crash
 * leaves all or none of it), discarding it, listing what is left on disk and finishing a merge a
 * killed process left.
 *
 * @module
 */
import { existsSync, renameSync, unlinkSync } from "node:fs";
import { readdir } from "node:fs/promises";
import type { TapeEntry } from "../entry.ts";
import { type PendingFork, validateForkId } from "../fork_journal.ts";
import { prepareBatch } from "./_append.ts";
import { finishMerge, journalPath, mergingPath, readJournal, readJournals } from "./_journal.ts";
import { withFileLock } from "./_lock.ts";
import { errorCode } from "./_read.ts";
import type { FileStoreCore } from "./_store_core.ts";

/** Appends to the journal of `fork`; flushed when it resolves. */
export async function journalAppend(
  core: FileStoreCore,
  tape: string,
  fork: string,
  entries: readonly TapeEntry[],
): Promise<void> {
  validateForkId(fork);
  const journal = journalPath(core.pathOf(tape), fork);
  await core.mutex.run(journal, async () => {
    try {
      await core.ensureDirectory();
      await core.journals.append(journal, tape, fork, entries);
    } catch (error) {
      core.fail("journal fork of", tape, error);
    }
  });
}

/** Appends the journal of `fork` (then `extra`) to the tape as one batch and removes the journal. */
export async function journalCommit(
  core: FileStoreCore,
  tape: string,
  fork: string,
  extra: readonly TapeEntry[],
): Promise<void> {
  validateForkId(fork);
  const path = core.pathOf(tape);
  const journal = journalPath(path, fork);
  const what = `commit fork ${fork} to tape ${JSON.stringify(tape)} (${path})`;
  await core.mutex.run(
    journal,
    () =>
      core.mutex.run(tape, () =>
        core.retry.run(what, async () => {
          const content = readJournal(journal, fork);
          if (content === null) return core.journals.close(journal); // committed already
          const checked = prepareBatch(tape, [...content.entries, ...extra]);
          const merging = mergingPath(path);
          await core.write(tape, path, checked, {
            before: (offset, length) => core.journals.markMerging(journal, merging, offset, length),
            failed: () => renameSync(merging, journal),
          });
          core.journals.close(journal);
          try {
            unlinkSync(merging);
          } catch {
            // Finished by another writer already.
          }
        })),
  );
}

/** Removes the journal of `fork`. */
export async function journalDiscard(
  core: FileStoreCore,
  tape: string,
  fork: string,
): Promise<void> {
  validateForkId(fork);
  const journal = journalPath(core.pathOf(tape), fork);
  await core.mutex.run(journal, () => Promise.resolve(core.journals.discard(journal)));
}

/** The tapes with a journal (or an unfinished merge) in the directory, sorted. */
export async function journalTapes(core: FileStoreCore): Promise<string[]> {
  await core.moveLegacyJournals();
  const journals = (await _namesIn(core.journalNames.names()))
    .map((name) => /^(.+)\.jsonl\.fork\./.exec(name)?.[1]);
  const merging = (await _namesIn(readdir(core.directory)))
    .map((name) => /^(.+)\.jsonl\.merging$/.exec(name)?.[1]);
  const tapes = [...journals, ...merging].filter((tape): tape is string => tape !== undefined);
  return [...new Set(tapes)].sort();
}

/**
 * The journals of `tape` left on disk, oldest first (a merge a killed process left is finished
 * first). Lists the forks folder, not the tape directory (see `_journal.ts`).
 */
export async function journalPending(core: FileStoreCore, tape: string): Promise<PendingFork[]> {
  const path = core.pathOf(tape);
  try {
    await core.moveLegacyJournals();
    // An undone merge is a journal again, so it is finished before the journals are listed.
    if (existsSync(mergingPath(path))) await finishTapeMerge(core, tape, path);
    return readJournals(await _namesIn(core.journalNames.names()), tape, path);
  } catch (error) {
    core.fail("list forks of", tape, error);
  }
}

/** The names a listing found; none when the folder does not exist. */
async function _namesIn(listing: Promise<readonly string[]>): Promise<readonly string[]> {
  try {
    return await listing;
  } catch (error) {
    if (errorCode(error) === "ENOENT") return [];
    throw error;
  }
}

/** Finishes (or undoes) the merge a killed process left on `tape`, under its lock. */
async function finishTapeMerge(core: FileStoreCore, tape: string, path: string): Promise<void> {
  await core.mutex.run(tape, () =>
    withFileLock(`${path}.lock`, () => {
      const { fd, size } = core.files.acquire(tape, path, core.spare);
      try {
        finishMerge(path, fd, size, () => core.cache.delete(tape));
      } finally {
        core.files.release(tape, fd);
      }
      return Promise.resolve();
    }, core.lockOptions(tape)));
}
