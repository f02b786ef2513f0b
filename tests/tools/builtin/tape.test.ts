import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { createEntry, messageEntry } from "../../../src/tape/entry.ts";
import { FileTapeStore } from "../../../src/tape/file_store.ts";
import { InMemoryTapeStore } from "../../../src/tape/memory_store.ts";
import { SpillStore, spillText } from "../../../src/tape/spill.ts";
import { Tape } from "../../../src/tape/tape.ts";
import { spillReadTool } from "../../../src/tools/builtin/spill_read.ts";
import {
  tapeAnchorsTool,
  tapeHandoffTool,
  tapeInfoTool,
  tapeResetTool,
  tapeSearchTool,
} from "../../../src/tools/builtin/tape.ts";
import { memoryTape, tempWorkspace, toolContext } from "./_helpers.ts";

describe("tape tools", () => {
  test("tape.info prints the seven summary lines and the resumable turns", async () => {
    const tape = memoryTape();
    await tape.ensureBootstrapAnchor();
    await tape.append(messageEntry({ role: "user", content: "hi" }));
    assert.equal(
      await tapeInfoTool().run({}, toolContext({}, tape)),
      [
        "name: a__b",
        "entries: 3",
        "anchors: 1",
        "last_anchor: session/start",
        "entries_since_last_anchor: 2",
        "last_token_usage: none",
        "last_token_cache_hit_rate: none",
        "resumable_turns: none",
      ].join("\n"),
    );
  });

  test("tape.search drops lines containing [tape.search] and reports the filtered count", async () => {
    const tape = memoryTape();
    await tape.append(messageEntry({ role: "user", content: "find the needle, café" }));
    await tape.append(
      createEntry("tool_result", { results: ["[tape.search]: 1 matches (0 filtered) needle"] }),
    );
    const text = String(await tapeSearchTool().run({ query: "needle" }, toolContext({}, tape)));
    const [head, ...lines] = text.split("\n");
    assert.equal(head, "[tape.search]: 1 matches (1 filtered)");
    assert.equal(lines.length, 1);
    assert.match(
      lines[0]!,
      /^\{"date": "[^"]+", "content": \{"role": "user", "content": "find the needle, caf\\u00e9"\}\}$/,
    );
  });

  test("tape.search honours kinds and limit given as strings or arrays", async () => {
    const tape = memoryTape();
    for (let i = 0; i < 5; i++) await tape.appendEvent("tick", { note: `needle ${i}` });
    await tape.append(messageEntry({ role: "user", content: "needle msg" }));
    const ctx = toolContext({}, tape);
    const events = String(
      await tapeSearchTool().run({ query: "needle", kinds: ["event"], limit: "2" }, ctx),
    );
    assert.match(events, /^\[tape\.search\]: 2 matches \(0 filtered\)/);
    assert.doesNotMatch(events, /needle msg/);
  });

  test("tape.search with only start fails with Invalid ISO date or datetime: ''.", async () => {
    await assert.rejects(
      tapeSearchTool().run({ query: "x", start: "2026-01-01" }, toolContext({}, memoryTape())),
      /Invalid ISO date or datetime: ''\./,
    );
  });

  test("tape.handoff with defaults returns anchor added: handoff and stores {summary: ''}", async () => {
    const tape = memoryTape();
    assert.equal(await tapeHandoffTool().run({}, toolContext({}, tape)), "anchor added: handoff");
    const [anchor, event] = await tape.query().all();
    assert.deepEqual(anchor!.payload, { name: "handoff", state: { summary: "" } });
    assert.deepEqual(event!.payload, {
      name: "handoff",
      data: { name: "handoff", state: { summary: "" } },
    });
    assert.equal(
      await tapeHandoffTool().run({ name: "phase-1", summary: "done" }, toolContext({}, tape)),
      "anchor added: phase-1",
    );
  });

  test("tape.anchors lists - session/start on a fresh session tape and (no anchors) on an empty one", async () => {
    const empty = memoryTape();
    assert.equal(await tapeAnchorsTool().run({}, toolContext({}, empty)), "(no anchors)");
    const tape = new Tape({ store: new InMemoryTapeStore() }).sessionTape("chat", "/ws");
    await tape.ensureBootstrapAnchor();
    await tape.handoff({ name: "phase-1" });
    assert.equal(
      await tapeAnchorsTool().run({}, toolContext({}, tape)),
      "- session/start\n- phase-1",
    );
  });

  test("tape.reset archive=true writes a .bak file and restarts the tape", async (t) => {
    const dir = await tempWorkspace(t);
    const store = new FileTapeStore(join(dir, "tapes"));
    const tape = new Tape({ store, archivePath: join(dir, "archive") }).scoped("a__b");
    await tape.append(messageEntry({ role: "user", content: "old" }));
    const text = String(await tapeResetTool().run({ archive: "true" }, toolContext({}, tape)));
    assert.match(text, /^Archived: .*a__b\.jsonl\.\d{8}T\d{6}Z\.bak$/);
    const [bak] = await readdir(join(dir, "archive"));
    assert.match(await readFile(join(dir, "archive", bak!), "utf8"), /"old"/);
    const entries = await tape.query().all();
    assert.deepEqual(entries.map((e) => e.kind), ["anchor", "event"]);
    assert.equal(await tapeResetTool().run({}, toolContext({}, tape)), "ok");
  });
});

describe("spill.read", () => {
  test("pages a spilled result back exactly and reports bad arguments as text", async () => {
    const tape = new Tape({ store: new InMemoryTapeStore(), sidecars: [new SpillStore()] })
      .scoped("a__b");
    const original = "🙂 spilled ".repeat(5000);
    const notice = await spillText(tape, original, { tool: "bash" });
    const handle = /handle: ([0-9a-f]{32})/.exec(notice ?? "")?.[1];
    assert.ok(handle, "the result spilled");
    const read = spillReadTool();
    const ctx = toolContext({}, tape);
    let cursor = 0;
    let content = "";
    for (let guard = 0; guard < 10; guard++) {
      const page = String(await read.run({ handle, cursor: String(cursor), count: "2" }, ctx));
      content += page.slice(page.indexOf("content:\n") + "content:\n".length);
      cursor = Number(/next_cursor: (\d+)/.exec(page)?.[1]);
      if (page.includes("complete: true")) break;
    }
    assert.equal(content, original);
    assert.equal(await read.run({ handle, cursor: -1 }, ctx), "`cursor` must be >= 0.");
    assert.equal(await read.run({ handle, count: 0 }, ctx), "`count` must be >= 1.");
    assert.equal(
      await read.run({ handle: "missing" }, ctx),
      "[no spilled tool result for handle 'missing']",
    );
    assert.equal(
      await read.run({ handle }, toolContext({}, memoryTape())),
      "spill sidecar unavailable in this context.",
    );
  });
});
