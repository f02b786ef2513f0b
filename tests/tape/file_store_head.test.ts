/**
 * Head reads of `FileTapeStore` and the reads of a first turn on a long file tape (issue 10
 * item 9): `kinds(...).limit(n)` on a cold store reads from the start only as far as needed,
 * and the first turn's reads (bootstrap-anchor check, session overrides, context after the last
 * anchor) leave the lines before the last anchor unparsed.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { appendFile, open, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { entryLine } from "../../src/tape/file/_jsonl.ts";
import { createEntry } from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { Tape } from "../../src/tape/tape.ts";
import { withDir } from "./_helpers.ts";

const TAPE = "a__b";

function line(id: number, kind: string, payload: Record<string, unknown>): string {
  return entryLine({ ...createEntry(kind, payload, {}, "2026-03-01T12:00:00+00:00"), id });
}

function filler(from: number, count: number, size = 20): string {
  let text = "";
  for (let id = from; id < from + count; id++) {
    text += line(id, "message", { role: "user", content: `m${id} ${"lorem ipsum ".repeat(size)}` });
  }
  return text;
}

type Query = (q: TapeQuery) => TapeQuery;
const QUERIES: [string, Query][] = [
  ["first anchor", (q) => q.kinds("anchor").limit(1)],
  ["two anchors", (q) => q.kinds("anchor").limit(2)],
  ["events and anchors", (q) => q.kinds("event", "anchor").limit(3)],
  ["limit 0", (q) => q.kinds("anchor").limit(0)],
  ["many messages", (q) => q.kinds("message").limit(250)],
  ["absent kind", (q) => q.kinds("nothing").limit(1)],
];

async function assertHeadEqualsFull(dir: string, content: string): Promise<void> {
  await writeFile(join(dir, `${TAPE}.jsonl`), content);
  const full = new FileTapeStore(dir);
  await new TapeQuery(TAPE, full).all();
  for (const [name, query] of QUERIES) {
    const cold = new FileTapeStore(dir);
    const got = await query(new TapeQuery(TAPE, cold)).all();
    assert.deepEqual(got, await query(new TapeQuery(TAPE, full)).all(), name);
  }
}

test("cold kinds-and-limit queries equal full reads", () =>
  withDir(async (dir) => {
    const anchor = (id: number, name: string) => line(id, "anchor", { name });
    const event = (id: number) => line(id, "event", { name: "model_switch", data: {} });
    await assertHeadEqualsFull(dir, anchor(1, "session/start") + filler(2, 400) + anchor(402, "h"));
    await assertHeadEqualsFull(dir, filler(1, 300) + anchor(301, "late") + event(302));
    await assertHeadEqualsFull(dir, "\uFEFF" + anchor(1, "bom") + filler(2, 10));
    // Lines longer than a read block, an invalid line, and a torn last line.
    await assertHeadEqualsFull(
      dir,
      filler(1, 3, 9000) + '{"id": 4, "kind": "anchor"}\n' + anchor(5, "x") + event(6) +
        '{"id": 7, "kind": "anchor", "payload": {"name": "torn"',
    );
    await assertHeadEqualsFull(dir, "");
    const missing = new FileTapeStore(join(dir, "nowhere"));
    assert.deepEqual(await new TapeQuery(TAPE, missing).kinds("anchor").limit(1).all(), []);
  }));

test("a first turn's reads on a long file tape leave the lines before the last anchor unread", () =>
  withDir(async (dir) => {
    const path = join(dir, `${TAPE}.jsonl`);
    const head = line(1, "anchor", { name: "session/start", state: { owner: "human" } }) +
      line(2, "event", { name: "model_switch", data: { model: "openai:x" } });
    const old = line(3, "message", { role: "user", content: "old" });
    await writeFile(
      path,
      head + old + filler(4, 600) + line(604, "anchor", { name: "handoff" }) + filler(605, 5),
    );
    const store = new FileTapeStore(dir);
    const tape = new Tape({ store }).scoped(TAPE);
    await tape.ensureBootstrapAnchor();
    const [model] = await tape.latestEvents(["model_switch", "reasoning_effort_switch"]);
    assert.equal(model?.id, 2);
    const messages = await tape.readMessages();
    assert.equal(messages.length, 5); // the five messages after the handoff anchor
    // Another writer rewrites an early line in place: a store that parsed it would still say "old".
    const handle = await open(path, "r+");
    try {
      const fresh = Buffer.from(old.replace("old", "new"));
      await handle.write(fresh, 0, fresh.length, Buffer.byteLength(head));
    } finally {
      await handle.close();
    }
    const third = (await new TapeQuery(TAPE, store).limit(3).all())[2];
    assert.equal(third?.payload.content, "new");
    await appendFile(path, filler(610, 1));
    assert.equal((await tape.readMessages()).length, 6);
  }));
