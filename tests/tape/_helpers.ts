/** Shared helpers of the tape tests. */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEntry, type TapeEntry } from "../../src/tape/entry.ts";
import { removeTree } from "../_helpers/remove_tree.ts";

/** A fresh temporary directory and its cleanup. */
export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "bub-tape-"));
  return { dir, cleanup: () => Promise.resolve(removeTree(dir)) };
}

/** An entry with a fixed date. */
export function entryAt(
  kind: string,
  payload: Record<string, unknown>,
  date: string,
  meta = {},
): TapeEntry {
  return createEntry(kind, payload, meta, date);
}

/** Runs `fn` with a fresh temporary folder, removed afterwards. */
export async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const { dir, cleanup } = await tempDir();
  try {
    await fn(dir);
  } finally {
    await cleanup();
  }
}

/**
 * Waits until `check()` holds, polling every 20 ms; fails naming `what` after `limitMs` (a bound
 * so a broken behaviour fails instead of hanging, not a timing assertion).
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  limitMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
