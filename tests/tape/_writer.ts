/**
 * A child process for the durability tests: appends entries to one tape and reports each
 * committed append on stdout as `ok <n>`.
 *
 * Usage: _writer.ts <file|sqlite> <path> <tape> <label> <count (0 = forever)>
 */
import process from "node:process";
import { messageEntry } from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { SqliteTapeStore } from "../../src/tape/sqlite_store.ts";
import type { TapeStore } from "../../src/tape/store.ts";

const [kind, path, tape, label, countText] = process.argv.slice(2);
const count = Number(countText);
const store: TapeStore & { close(): Promise<void> } = kind === "sqlite"
  ? new SqliteTapeStore(path!)
  : new FileTapeStore(path!);
const filler = "é😀 ".repeat(50);
for (let n = 0; count === 0 || n < count; n++) {
  await store.append(tape!, messageEntry({ role: "user", content: filler, writer: label, n }));
  process.stdout.write(`ok ${n}\n`);
}
await store.close();
