/**
 * A child process for the fork-journal crash tests: runs a turn's fork on one tape and reports
 * on stdout what is durable (`ok <n>` after each fork append resolves, `held`, `merged <i>`,
 * `merging`, `written`), so the test can SIGKILL it at a chosen point.
 *
 * Usage: _fork_child.ts <file|sqlite|postgres> <dir|db path|url> <schema|-> <tape> <mode> <count>
 * Modes: journal (append forever), hold (append count, then wait), merged (append count, merge,
 * wait), sidecar (one entry on a sidecar tape and one on the tape, then wait), loop (forks of count entries merged one after another, forever), and for the file
 * store merging-none / merging-part / merging-whole (killed inside the commit: after the journal
 * became the merging file with nothing / a torn part / the whole batch written to the tape).
 */
import { appendFileSync, writeSync } from "node:fs";
import process from "node:process";
import { createEntry } from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { FileJournals } from "../../src/tape/file/_journal.ts";
import { PostgresTapeStore } from "../../src/tape/postgres_store.ts";
import { SqliteTapeStore } from "../../src/tape/sqlite_store.ts";
import { Tape } from "../../src/tape/tape.ts";

const [kind, where, schema, name, mode, countText] = process.argv.slice(2) as string[];
const count = Number(countText);
const store = kind === "sqlite"
  ? new SqliteTapeStore(where!)
  : kind === "postgres"
  ? new PostgresTapeStore(where!, { schema: schema! })
  : new FileTapeStore(where!);
const tape = new Tape({ store, sidecars: mode === "sidecar" ? [{ name: "spill" }] : [] })
  .scoped(name!);
const say = (line: string) => void writeSync(1, `${line}\n`);
const hang = () => new Promise<never>(() => setInterval(() => {}, 60_000));

const journals = FileJournals.prototype;
if (mode === "merging-none" || mode === "merging-part") {
  const original = journals.markMerging;
  journals.markMerging = async function (path, merging, offset, length) {
    await original.call(this, path, merging, offset, length);
    if (mode === "merging-part") {
      // What a write cut short by the kill leaves: a whole line of the batch and a torn one.
      const line = JSON.stringify({
        id: 999,
        kind: "event",
        payload: { name: "torn", data: {} },
        meta: {},
        date: "2026-01-01T00:00:00+00:00",
      });
      appendFileSync(`${where}/${name}.jsonl`, `${line}\n{"id": 1000, "ki`);
    }
    say("merging");
    return await hang();
  };
}
if (mode === "merging-whole") {
  const original = journals.close;
  journals.close = function (path) {
    if (path.includes(".fork.")) {
      say("written");
      // Blocks this process (the batch is in the tape, the merging file not yet removed).
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
    }
    return original.call(this, path);
  };
}

const fill = "é😀 ".repeat(40);
async function runFork(label: number, n: number): Promise<Tape> {
  const fork = tape.forkTape();
  for (let i = 0; count === 0 || i < n || mode === "journal"; i++) {
    // tool.start events: journaled at once (see `isDeferrableEntry`).
    const data = { call_id: `c${i}`, fork: label, n: i, fill };
    await fork.append(createEntry("event", { name: "tool.start", data }));
    say(`ok ${i}`);
  }
  return fork;
}

if (mode === "tools") {
  // A step as the agent records it: the model's tool calls before any runs, then per call
  // tool.start / tool.end; killed while the second call runs, the third not started.
  const fork = tape.forkTape();
  const call = (id: string, tool: string) => ({
    id,
    type: "function",
    function: { name: tool, arguments: "{}" },
  });
  await fork.appendEvent("loop.start", { prompt: "go" });
  await fork.appendEvent("loop.step.start", { step: 1, prompt: "go" });
  await fork.appendMany([
    createEntry("message", { role: "user", content: "go" }),
    createEntry("tool_call", {
      calls: [call("c1", "append_line"), call("c2", "bash"), call("c3", "fs.write")],
    }),
  ]);
  await fork.appendEvent("tool.start", { call_id: "c1", tool: "append_line" });
  await fork.appendEvent("tool.end", { call_id: "c1", status: "ok", result: "line 1 added" });
  await fork.appendEvent("tool.start", { call_id: "c2", tool: "bash" });
  say("held");
  await hang();
}
if (mode === "sidecar") {
  // A tool's output spilled to the sidecar tape, then its tool.end on the main tape.
  const fork = tape.forkTape();
  const spill = tape.sidecarTapeName("spill");
  await fork.store.appendMany!(spill, [
    createEntry("event", { name: "tool.end", data: { call_id: "c1", chunk: 0 } }),
  ]);
  await fork.appendEvent("tool.end", { call_id: "c1", status: "ok", result: "spilled" });
  say("held");
  await hang();
}
if (mode === "journal") await runFork(0, 0);
else if (mode === "hold") {
  await runFork(0, count);
  say("held");
  await hang();
} else if (mode === "loop") {
  for (let i = 0;; i++) {
    const fork = await runFork(i, count);
    await fork[Symbol.asyncDispose]();
    say(`merged ${i}`);
  }
} else {
  const fork = await runFork(0, count);
  await fork[Symbol.asyncDispose]();
  say("merged 0");
  await hang();
}
