/**
 * Private: finding the processes `bub` runs under (its parent, the parent's parent, ...) whose
 * start-up environment still holds one of the keys `bub` removed from its own. A launcher that
 * stays running as Bub's parent (`npx`, `npm run`, `deno task`, a shell script without `exec`)
 * keeps its copy, and every command Bub runs can read it from `/proc/<pid>/environ`. Bub cannot
 * change that process; it can say so. Processes of other users are skipped (unreadable).
 *
 * @module
 */
import { readFileSync } from "node:fs";
import process from "node:process";

/** An ancestor process holding some of the keys. */
export interface ExposingAncestor {
  /** Its pid. */
  pid: number;
  /** Its command name (`/proc/<pid>/comm`). */
  command: string;
  /** The names of the keys whose value its start-up environment holds. */
  names: string[];
}

/** Values shorter than this are not looked for. */
const MIN_LENGTH = 6;

function read(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

function parentOf(pid: number): number | null {
  const status = read(`/proc/${pid}/status`);
  const match = status === null ? null : /^PPid:\s*(\d+)$/m.exec(status);
  return match === null ? null : Number(match[1]);
}

/**
 * The ancestors of this process (up to, not including, pid 1) whose start-up environment holds
 * the value of one of `secrets` (name → value; values of 6 characters or more), nearest first.
 * Linux only; empty elsewhere.
 */
export function ancestorsHolding(secrets: Readonly<Record<string, string>>): ExposingAncestor[] {
  const found: ExposingAncestor[] = [];
  // A short value (a test's "k") would match unrelated variables; keys are longer.
  const wanted = Object.entries(secrets).filter(([, value]) => value.length >= MIN_LENGTH);
  if (process.platform !== "linux" || wanted.length === 0) return found;
  const seen = new Set<number>();
  let pid = parentOf(process.pid);
  while (pid !== null && pid > 1 && !seen.has(pid)) {
    seen.add(pid);
    const environ = read(`/proc/${pid}/environ`);
    if (environ !== null) {
      const values = new Set(
        environ.split("\0").map((entry) => entry.slice(entry.indexOf("=") + 1)),
      );
      const names = wanted.filter(([, value]) => values.has(value)).map(([name]) => name);
      if (names.length > 0) {
        const command = read(`/proc/${pid}/comm`)?.trim() ?? "?";
        found.push({ pid, command, names });
      }
    }
    pid = parentOf(pid);
  }
  return found;
}

/**
 * The warning line for `ancestors` (from {@link ancestorsHolding}), or null when there is none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { launcherWarning } from "./_launcher_check.ts";
 * const text = launcherWarning([{ pid: 12, command: "npm exec", names: ["BUB_API_KEY"] }]);
 * assert.ok(text !== null && text.includes("npm exec (pid 12)"));
 * ```
 */
export function launcherWarning(ancestors: readonly ExposingAncestor[]): string | null {
  if (ancestors.length === 0) return null;
  const names = [...new Set(ancestors.flatMap((ancestor) => ancestor.names))];
  const [verb, them, keys] = names.length === 1
    ? ["is", "it", "the key"]
    : ["are", "them", "the keys"];
  const where = ancestors.map((a) => `${a.command} (pid ${a.pid})`).join(", ");
  return `bub: warning: ${
    names.join(", ")
  } ${verb} also in the start-up environment of ${where}, ` +
    `which bub runs under: every command Bub runs can read ${them} from /proc/<pid>/environ. ` +
    "Start bub directly or with exec, not through a launcher that stays (npx, npm run, " +
    `deno task, a shell script without exec), or put ${keys} in config.yml or ./.env.\n`;
}
