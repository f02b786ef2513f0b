import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { BubError } from "../../src/kernel/errors.ts";
import { anchorEntry, messageEntry, type TapeEntry } from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { InMemoryTapeStore } from "../../src/tape/memory_store.ts";
import { sessionTapeName } from "../../src/tape/naming.ts";
import type { TapeQuery } from "../../src/tape/query.ts";
import { readSpill } from "../../src/tape/spill_read.ts";
import { SpillStore, spillText } from "../../src/tape/spill.ts";
import type { TapeStore } from "../../src/tape/store.ts";
import { Tape } from "../../src/tape/tape.ts";
import { formatTapeInfo } from "../../src/tape/info.ts";
import { tempDir } from "./_helpers.ts";

const md5 = (text: string) => createHash("md5").update(text).digest("hex");
const fixedClock = () => new Date("2026-08-21T14:51:51.000Z");

test("session tape name = md5(workspace)[0:16] + '__' + md5(session_id)[0:16]", () => {
  const name = sessionTapeName("cli:local", "/work/project");
  assert.equal(name, `${md5("/work/project").slice(0, 16)}__${md5("cli:local").slice(0, 16)}`);
  assert.notEqual(sessionTapeName("cli:local", "/work/other"), name);
  assert.equal(
    sessionTapeName("s", "rel/dir"),
    `${md5(resolve("rel/dir")).slice(0, 16)}__${md5("s").slice(0, 16)}`,
  );
  const tape = new Tape({ store: new InMemoryTapeStore() });
  assert.equal(tape.sessionTape("cli:local", "/work/project").name, name);
  assert.throws(() => tape.name, /not scoped/);
});

test("handoff writes the anchor then the `handoff` event with identical meta", async () => {
  const store = new InMemoryTapeStore();
  const tape = new Tape({ store }).scoped("a__b");
  await tape.handoff({ name: "phase/2", state: { summary: "s" }, meta: { run_id: "run-1" } });
  await tape.handoff({ name: "bare" });
  const entries = store.read("a__b")!;
  assert.deepEqual(entries.map((e) => [e.kind, e.payload, e.meta]), [
    ["anchor", { name: "phase/2", state: { summary: "s" } }, { run_id: "run-1" }],
    ["event", { name: "handoff", data: { name: "phase/2", state: { summary: "s" } } }, {
      run_id: "run-1",
    }],
    ["anchor", { name: "bare" }, {}],
    ["event", { name: "handoff", data: { name: "bare", state: {} } }, {}],
  ]);
});

test("ensureBootstrapAnchor writes session/start {owner: human} once", async () => {
  const store = new InMemoryTapeStore();
  const tape = new Tape({ store }).scoped("a__b");
  await tape.ensureBootstrapAnchor();
  await tape.ensureBootstrapAnchor();
  assert.deepEqual(store.read("a__b")!.map((e) => [e.kind, e.payload.name]), [[
    "anchor",
    "session/start",
  ], ["event", "handoff"]]);
  assert.deepEqual(await tape.anchors(), [{ name: "session/start", state: { owner: "human" } }]);
});

test("tape.info after a call with usage shows the cache hit rate 37.50%; without cache details none", async () => {
  const tape = new Tape({ store: new InMemoryTapeStore() }).scoped("a__b");
  await tape.ensureBootstrapAnchor();
  await tape.recordChat({
    runId: "run-1",
    newMessages: [{ role: "user", content: "q" }],
    responseText: "a",
    usage: { prompt_tokens: 8, total_tokens: 10, prompt_tokens_details: { cached_tokens: 3 } },
  });
  const info = await tape.info();
  assert.deepEqual(info, {
    name: "a__b",
    entries: 5,
    anchors: 1,
    lastAnchor: "session/start",
    entriesSinceLastAnchor: 4,
    lastTokenUsage: 10,
    lastTokenCacheHitRate: 0.375,
    resumableTurns: [],
  });
  assert.match(
    formatTapeInfo(info),
    /\nlast_token_cache_hit_rate: 37\.50%\nresumable_turns: none$/,
  );
  await tape.recordChat({
    runId: "run-2",
    responseText: "b",
    response: { usage: { prompt_tokens: 8, total_tokens: 12, completion_tokens: null } },
  });
  const second = await tape.info();
  assert.equal(second.lastTokenUsage, 12);
  assert.equal(second.lastTokenCacheHitRate, null);
  assert.match(formatTapeInfo(second), /last_token_cache_hit_rate: none\nresumable_turns: none$/);
});

test("recordChat writes system, context error, messages, tool_call, tool_result, error, assistant, run in order", async () => {
  const store = new InMemoryTapeStore();
  const tape = new Tape({ store }).scoped("a__b");
  const contextError = new BubError("invalid_input", "ctx");
  await tape.recordChat({
    runId: "run-7",
    systemPrompt: "sys",
    contextError,
    newMessages: [{ role: "user", content: "steer" }, { role: "user", content: "prompt" }],
    toolCalls: [{ id: "c1" }],
    toolResults: ["r"],
    error: new BubError("provider", "down"),
    responseText: "text",
    provider: "openai",
    model: "gpt",
  });
  const entries = store.read("a__b")!;
  assert.deepEqual(entries.map((e) => e.kind), [
    "system",
    "error",
    "message",
    "message",
    "tool_call",
    "tool_result",
    "error",
    "message",
    "event",
  ]);
  assert.ok(entries.every((e) => e.meta.run_id === "run-7"));
  assert.deepEqual(entries[8]?.payload, {
    name: "run",
    data: { status: "error", provider: "openai", model: "gpt" },
  });
  const store2 = new InMemoryTapeStore();
  await new Tape({ store: store2 }).scoped("x__y").recordChat({
    runId: "r",
    systemPrompt: "",
    contextError,
    error: contextError,
  });
  assert.deepEqual(store2.read("x__y")!.map((e) => e.kind), ["error", "event"]);
});

test("reset({archive:true}) writes <tape>.jsonl.<YYYYMMDDTHHMMSSZ>.bak, returns `Archived: <path>`, restarts with session/start {owner, archived}", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const store = new FileTapeStore(join(dir, "tapes"));
    const tape = new Tape({ store, archivePath: join(dir, "archive"), clock: fixedClock }).scoped(
      "a__b",
    );
    await tape.ensureBootstrapAnchor();
    await tape.append(messageEntry({ role: "user", content: "old" }));
    const expected = join(dir, "archive", "a__b.jsonl.20260821T145151Z.bak");
    assert.equal(await tape.reset({ archive: true }), `Archived: ${expected}`);
    const archived = (await readFile(expected, "utf8")).trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    assert.deepEqual(archived.map((e) => e.id), [1, 2, 3]);
    assert.deepEqual(Object.keys(archived[0]), ["id", "kind", "payload", "meta", "date"]);
    const entries = await tape.query().all();
    assert.deepEqual(entries[0]?.payload, {
      name: "session/start",
      state: { owner: "human", archived: expected },
    });
    assert.equal(entries[0]?.id, 1);
    assert.equal(await tape.reset(), "ok");
    assert.deepEqual((await tape.query().all())[0]?.payload, {
      name: "session/start",
      state: { owner: "human" },
    });
  } finally {
    await cleanup();
  }
});

test("reset with archive also archives the spill sidecar with the same stamp and makes old handles unreadable", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const store = new FileTapeStore(join(dir, "tapes"));
    const tape = new Tape({
      store,
      archivePath: join(dir, "archive"),
      sidecars: [new SpillStore()],
      clock: fixedClock,
    }).scoped("a__b");
    const reference = await spillText(tape, "x".repeat(20_000), { tool: "bash" });
    const handle = /handle: ([0-9a-f]{32})/.exec(reference!)![1]!;
    assert.match(await readSpill(tape, handle), /complete: false/);
    await tape.reset({ archive: true });
    const sidecarArchive = join(dir, "archive", "a__b__sidecar__spill.jsonl.20260821T145151Z.bak");
    assert.match(await readFile(sidecarArchive, "utf8"), new RegExp(`spill/${handle}/manifest`));
    assert.equal(await readSpill(tape, handle), `[no spilled tool result for handle '${handle}']`);
    const events = (await tape.query().kinds("event").all()).filter((e) =>
      String(e.payload.name).startsWith("sidecar.")
    );
    assert.deepEqual(
      events.map((
        e,
      ) => [e.payload.name, (e.payload.data as Record<string, unknown>).status, e.meta.context]),
      [
        ["sidecar.archive", "ok", false],
        ["sidecar.reset", "ok", false],
      ],
    );
  } finally {
    await cleanup();
  }
});

class FailingSidecarStore extends InMemoryTapeStore {
  failOn: string;
  constructor(failOn: string) {
    super();
    this.failOn = failOn;
  }
  override fetchAll(query: TapeQuery): Promise<TapeEntry[]> {
    if (query.tape.endsWith(this.failOn)) return Promise.reject(new Error("disk on fire"));
    return super.fetchAll(query);
  }
}

test("a failing sidecar archive skips that sidecar's reset and records sidecar.reset {status: skipped, cause: archive_failed}", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const store = new FailingSidecarStore("__sidecar__spill");
    const tape = new Tape({
      store,
      archivePath: dir,
      sidecars: [new SpillStore()],
      clock: fixedClock,
    }).scoped("a__b");
    await store.append("a__b__sidecar__spill", anchorEntry("spill/x/manifest"));
    await tape.append(messageEntry({ content: "old" }));
    assert.match(await tape.reset({ archive: true }), /^Archived: /);
    assert.equal(store.read("a__b__sidecar__spill")?.length, 1);
    const events = (await tape.query().kinds("event").all()).filter((e) =>
      String(e.payload.name).startsWith("sidecar.")
    );
    assert.deepEqual(events.map((e) => e.payload.data), [
      { sidecar: "spill", status: "error", reason: "tape.reset", error: "disk on fire" },
      { sidecar: "spill", status: "skipped", reason: "tape.reset", cause: "archive_failed" },
    ]);
    assert.equal(
      await tape.resetSidecar("spill", { archive: true }),
      "spill archive failed: disk on fire; spill reset skipped",
    );
    assert.equal(await tape.archiveSidecar("spill"), "spill archive failed: disk on fire");
  } finally {
    await cleanup();
  }
});

test("archiveSidecar / resetSidecar return their texts and unknown sidecars are not mounted", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const tape = new Tape({
      store: new InMemoryTapeStore(),
      archivePath: dir,
      sidecars: [new SpillStore(), new SpillStore({ threshold: 1 })],
      clock: fixedClock,
    }).scoped("a__b");
    assert.equal(tape.sidecars.length, 1);
    assert.equal(
      await tape.archiveSidecar("spill"),
      `Archived spill: ${join(dir, "a__b__sidecar__spill.jsonl.20260821T145151Z.bak")}`,
    );
    assert.equal(await tape.resetSidecar("spill"), "ok");
    const data = (await tape.query().all()).map((
      e,
    ) => [e.payload.name, (e.payload.data as Record<string, unknown>).reason]);
    assert.deepEqual(data, [["sidecar.archive", "manual"], ["sidecar.reset", "gc"]]);
    await assert.rejects(
      tape.resetSidecar("nope"),
      /Tape sidecar 'nope' is not mounted on tape "a__b"/,
    );
    assert.throws(
      () => tape.sidecarTapeName("nope"),
      (e: unknown) => BubError.isInstance(e) && e.kind === "not_found",
    );
  } finally {
    await cleanup();
  }
});

test("a sync store is wrapped by the adapter and works through Tape", async () => {
  const rows: TapeEntry[] = [];
  const sync = {
    listTapes: () => ["a__b"],
    reset: () => void rows.splice(0),
    fetchAll: (_q: TapeQuery) => rows.slice(),
    append: (_t: string, e: TapeEntry) => void rows.push({ ...e, id: rows.length + 1 }),
  };
  const tape = new Tape({ store: sync }).scoped("a__b");
  await tape.appendEvent("x", { a: 1 });
  assert.deepEqual((await tape.query().all()).map((e) => e.id), [1]);
  assert.notEqual(tape.store as unknown, sync as unknown as TapeStore);
});
