/**
 * Fork journals of older versions, which kept them next to their tapes
 * (`<tape>.jsonl.fork.<fork id>`) before the `forks` folder held them (see `_journal.ts`). Once per
 * store, at its first look for journals, those whose writer is not running any more move into the
 * folder, where recovery finds them. One whose writer still runs (an older Bub beside this one)
 * stays where it is: that process commits or discards it itself.
 *
 * @module
 */
import { mkdirSync, renameSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { ownerAlive } from "../fork_journal.ts";
import { FORKS_FOLDER, readJournal } from "./_journal.ts";
import { errorCode } from "./_read.ts";

/** Moves the journals an older version left in `directory` into its forks folder. */
export async function moveLegacyJournals(directory: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return;
    throw error;
  }
  for (const name of names) {
    const fork = /^.+\.jsonl\.fork\.(.+)$/.exec(name)?.[1];
    if (fork === undefined) continue;
    const from = join(directory, name);
    const content = readJournal(from, fork);
    if (content === null || ownerAlive(content.owner, content.fork) === true) continue;
    mkdirSync(join(directory, FORKS_FOLDER), { recursive: true, mode: 0o700 });
    try {
      renameSync(from, join(directory, FORKS_FOLDER, name));
    } catch (error) {
      if (errorCode(error) !== "ENOENT") throw error; // else moved by another store meanwhile
    }
  }
}
