/**
 * A child process for the lock tests: takes the tape lock file given as argument, prints
 * `held`, and keeps it until killed.
 *
 * Usage: _lock_holder.ts <lock path>
 */
import process from "node:process";
import { withFileLock } from "../../src/tape/file/_lock.ts";

const [path] = process.argv.slice(2);
await withFileLock(path!, async () => {
  process.stdout.write("held\n");
  await new Promise(() => setInterval(() => {}, 60_000));
}, { what: "the test tape" });
