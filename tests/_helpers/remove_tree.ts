/**
 * Removing a test's temporary folder, trying again when a name appears in it while `rm` runs
 * (ENOTEMPTY): a file store's next spare file, made in the thread pool a moment after the last
 * append, can land there during the removal (seen on Deno in CI, twice).
 *
 * @module
 */
import { rmSync } from "node:fs";

/** Removes `dir` and everything in it (missing is fine); up to 5 tries, 20 ms apart. */
export function removeTree(dir: string): void {
  for (let attempt = 1;; attempt++) {
    try {
      return rmSync(dir, { recursive: true, force: true });
    } catch (error) {
      if ((error as { code?: string }).code !== "ENOTEMPTY" || attempt === 5) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}
