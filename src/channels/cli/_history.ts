/**
 * The REPL's input history: one file per workspace under `<home>/history/`.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { appendFile, mkdir, readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";

/** How many history lines are loaded into the prompt. */
export const HISTORY_SIZE = 1000;

/** `<home>/history/<md5 hex of the absolute workspace path>.history`. */
export function historyPath(home: string, workspace: string): string {
  const digest = createHash("md5").update(resolve(workspace), "utf8").digest("hex");
  return join(home, "history", `${digest}.history`);
}

/** The last {@link HISTORY_SIZE} entries, newest first (empty when the file is missing). */
export async function loadHistory(path: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    return [];
  }
  return text.split("\n").filter((line) => line.trim() !== "").slice(-HISTORY_SIZE).reverse();
}

/** Appends one entry (newlines replaced by spaces), creating the folder when needed. */
export async function appendHistory(path: string, entry: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await appendFile(path, entry.replace(/[\r\n]+/g, " ") + "\n", { encoding: "utf8", mode: 0o600 });
}
