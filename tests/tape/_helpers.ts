/** Shared helpers of the tape tests. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEntry, type TapeEntry } from "../../src/tape/entry.ts";

/** A fresh temporary directory and its cleanup. */
export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "bub-tape-"));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
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
