/**
 * A child of the kill -9 row: runs agent turns (a tool call, then a text answer) against the
 * soak's mock model with a file or SQLite tape store, several sessions at once, until killed.
 * After each append returns it prints `ok <tape> <canonical JSON of kind, payload and date>`
 * for every entry the append committed; `ready` once the runtime is up.
 *
 * Usage: _soak_turn_child.ts <file|sqlite> <store path> <model url> <round>
 *
 * @module
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { z } from "zod";
import { BubFramework } from "../src/builtin/framework.ts";
import type { TapeEntry } from "../src/tape/entry.ts";
import { FileTapeStore } from "../src/tape/file_store.ts";
import { SqliteTapeStore } from "../src/tape/sqlite_store.ts";
import { defineTool } from "../src/tools/tool.ts";
import { canonicalJson } from "./_soak_common.ts";

const SESSIONS = 3;
const [kind, path, url, round] = process.argv.slice(2) as [string, string, string, string];

const reported = new WeakSet<TapeEntry>();
function report(tape: string, entries: readonly TapeEntry[]): void {
  const lines = entries.filter((entry) => !reported.has(entry)).map((entry) => {
    reported.add(entry);
    return `ok ${tape} ${entryKey(entry)}\n`;
  });
  if (lines.length) process.stdout.write(lines.join(""));
}

/** What identifies an entry across a write and a read back. */
export function entryKey(entry: TapeEntry): string {
  return canonicalJson([entry.kind, entry.payload, entry.date]);
}

class WatchedFileStore extends FileTapeStore {
  override async append(tape: string, entry: TapeEntry): Promise<void> {
    await super.append(tape, entry);
    report(tape, [entry]);
  }
  override async appendMany(tape: string, entries: readonly TapeEntry[]): Promise<void> {
    await super.appendMany(tape, entries);
    report(tape, entries);
  }
}

class WatchedSqliteStore extends SqliteTapeStore {
  override async append(tape: string, entry: TapeEntry): Promise<void> {
    await super.append(tape, entry);
    report(tape, [entry]);
  }
  override async appendMany(tape: string, entries: readonly TapeEntry[]): Promise<void> {
    await super.appendMany(tape, entries);
    report(tape, entries);
  }
}

async function main(): Promise<void> {
  const home = join(path, "..", "home");
  mkdirSync(home, { recursive: true });
  const bub = new BubFramework({
    home,
    workspace: home,
    configFile: join(home, "config.yml"),
    loadDotenv: false,
    builtin: { env: { BUB_MODEL: "openai:soak", BUB_API_KEY: "sk-soak", BUB_API_BASE: url } },
  });
  bub.loadBuiltinHooks();
  const builtin = bub.pluginManager.get("builtin") as {
    runtime: { registry: { register(tool: unknown): void } };
  };
  builtin.runtime.registry.register(defineTool({
    name: "soak_noop",
    description: "Does nothing",
    parameters: z.object({ value: z.number() }),
    handler: () => "ok",
  }));
  bub.register({
    name: "soak-store",
    provideTapeStore: () =>
      kind === "sqlite" ? new WatchedSqliteStore(path) : new WatchedFileStore(path),
  });
  await bub.running();
  process.stdout.write("ready\n");
  await Promise.all(Array.from({ length: SESSIONS }, async (_, session) => {
    for (let n = 0;; n++) {
      await bub.processInbound({
        channel: "soak",
        chatId: `s${session}`,
        content: `round ${round} turn ${n} TAG-${round}-${session}-${n}`,
      });
    }
  }));
}

await main();
