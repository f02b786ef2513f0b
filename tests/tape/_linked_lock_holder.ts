/**
 * A child process for the linked-lock tests: takes the lock file given as argument by linking a
 * lock template in the given folder, prints `held`, and keeps it until killed.
 *
 * Usage: _linked_lock_holder.ts <folder> <lock path>
 */
import process from "node:process";
import { withFileLock } from "../../src/tape/file/_lock.ts";
import { LockTemplate } from "../../src/tape/file/_lock_template.ts";

const [dir, path] = process.argv.slice(2);
await withFileLock(path!, async () => {
  process.stdout.write("held\n");
  await new Promise(() => setInterval(() => {}, 60_000));
}, { what: "the test tape", template: new LockTemplate(dir!) });
