import assert from "node:assert/strict";
import { test } from "node:test";
import { anchorEntry, eventEntry, messageEntry, type TapeEntry } from "../../src/tape/entry.ts";
import { ForkTapeStore } from "../../src/tape/fork_store.ts";
import { InMemoryTapeStore } from "../../src/tape/memory_store.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { SpillStore } from "../../src/tape/spill.ts";
import { Tape } from "../../src/tape/tape.ts";

function contents(entries: readonly TapeEntry[] | null): unknown[] {
  return (entries ?? []).map((e) => e.payload.content ?? e.payload.name);
}

async function parentWith(...texts: string[]): Promise<InMemoryTapeStore> {
  const store = new InMemoryTapeStore();
  for (const content of texts) await store.append("a__b", messageEntry({ role: "user", content }));
  return store;
}

test("fork reset + discard keeps parent entries; fork reset + merge replaces them", async () => {
  for (const merge of [false, true]) {
    const parent = await parentWith("old");
    const tape = new Tape({ store: parent }).scoped("a__b");
    {
      await using fork = tape.forkTape(merge);
      await fork.store.reset("a__b");
      await fork.append(messageEntry({ role: "user", content: "new" }));
    }
    assert.deepEqual(contents(parent.read("a__b")), merge ? ["new"] : ["old"]);
  }
});

test("after a fork reset, fetching the tape returns only the fork's new entries", async () => {
  const parent = await parentWith("old1", "old2");
  const fork = new ForkTapeStore(parent, { tape: "a__b" });
  assert.deepEqual(contents(await new TapeQuery("a__b", fork).all()), ["old1", "old2"]);
  await fork.reset("a__b");
  assert.deepEqual(await new TapeQuery("a__b", fork).all(), []);
  await fork.append("a__b", messageEntry({ content: "new" }));
  assert.deepEqual(contents(await new TapeQuery("a__b", fork).all()), ["new"]);
  assert.deepEqual(contents(parent.read("a__b")), ["old1", "old2"]);
});

test("resetting a non-managed tape through a fork resets the parent immediately", async () => {
  const parent = await parentWith("old");
  await parent.append("other__tape", messageEntry({ content: "x" }));
  const fork = new ForkTapeStore(parent, { tape: "a__b" });
  await fork.reset("other__tape");
  assert.equal(parent.read("other__tape"), null);
  await fork.append("other__tape", messageEntry({ content: "direct" }));
  assert.deepEqual(contents(parent.read("other__tape")), ["direct"]);
});

test("appending a message with image parts through a fork stores only its text parts", async () => {
  const parent = new InMemoryTapeStore();
  const fork = new ForkTapeStore(parent, { tape: "a__b" });
  const parts = [{ type: "text", text: "look" }, {
    type: "image_url",
    image_url: { url: "data:image/png;base64,AAA" },
  }, { type: "input_audio", input_audio: { data: "x", format: "wav" } }];
  await fork.append("a__b", messageEntry({ role: "user", content: parts }));
  await fork.append("a__b", eventEntry("loop.step.start", { prompt: parts }));
  await fork.append("a__b", messageEntry({ prompt: parts }));
  await fork.mergeBack();
  const stored = parent.read("a__b")!;
  assert.deepEqual(stored[0]?.payload.content, [{ type: "text", text: "look" }]);
  assert.deepEqual((stored[1]?.payload.data as Record<string, unknown>).prompt, parts);
  assert.deepEqual(stored[2]?.payload.prompt, [{ type: "text", text: "look" }]);
});

test("merging an empty fork leaves the parent untouched", async () => {
  const parent = await parentWith("old");
  const before = parent.read("a__b");
  const fork = new ForkTapeStore(parent, { tape: "a__b", sidecarTapes: ["a__b__sidecar__spill"] });
  assert.equal(fork.isEmpty, true);
  await fork.mergeBack();
  assert.deepEqual(parent.read("a__b"), before);
  assert.equal(parent.read("a__b__sidecar__spill"), null);
});

test("fork reads: parent entries then local; a local anchor after-last clears earlier results; parent anchor errors read as empty", async () => {
  const parent = new InMemoryTapeStore();
  const fork = new ForkTapeStore(parent, { tape: "a__b" });
  await fork.append("a__b", messageEntry({ content: "no anchor yet" }));
  assert.deepEqual(contents(await new TapeQuery("a__b", fork).lastAnchor().all()), [
    "no anchor yet",
  ]);
  await parent.append("a__b", anchorEntry("p"));
  await parent.append("a__b", messageEntry({ content: "parent" }));
  assert.deepEqual(contents(await new TapeQuery("a__b", fork).lastAnchor().all()), [
    "parent",
    "no anchor yet",
  ]);
  await fork.append("a__b", anchorEntry("local"));
  await fork.append("a__b", messageEntry({ content: "after" }));
  assert.deepEqual(contents(await new TapeQuery("a__b", fork).lastAnchor().all()), ["after"]);
  assert.deepEqual(contents(await new TapeQuery("a__b", fork).afterAnchor("p").all()), [
    "parent",
    "no anchor yet",
    "local",
    "after",
  ]);
  assert.deepEqual(contents(await new TapeQuery("a__b", fork).kinds("message").limit(2).all()), [
    "parent",
    "no anchor yet",
  ]);
});

test("merge order: sidecar tapes first, then the main tape; ids are reassigned by the parent", async () => {
  const order: string[] = [];
  class Recording extends InMemoryTapeStore {
    override appendMany(tape: string, entries: readonly TapeEntry[]): Promise<void> {
      order.push(tape);
      return super.appendMany(tape, entries);
    }
  }
  const parent = new Recording();
  await parent.append("a__b", messageEntry({ content: "p" }));
  const tape = new Tape({ store: parent, sidecars: [new SpillStore()] }).scoped("a__b");
  {
    await using fork = tape.forkTape();
    await fork.append(messageEntry({ content: "m" }));
    await fork.store.append("a__b__sidecar__spill", eventEntry("s"));
    assert.equal(parent.read("a__b__sidecar__spill"), null);
  }
  assert.deepEqual(order, ["a__b", "a__b__sidecar__spill", "a__b"]);
  assert.deepEqual(parent.read("a__b")!.map((e) => e.id), [1, 2]);
});

test("a failing sidecar merge is logged and recorded as a context-excluded sidecar.merge error on the main tape", async () => {
  class Broken extends InMemoryTapeStore {
    override appendMany(tape: string, entries: readonly TapeEntry[]): Promise<void> {
      if (tape.includes("__sidecar__")) return Promise.reject(new Error("sidecar disk full"));
      return super.appendMany(tape, entries);
    }
  }
  const parent = new Broken();
  const fork = new ForkTapeStore(parent, { tape: "a__b", sidecarTapes: ["a__b__sidecar__spill"] });
  await fork.append("a__b__sidecar__spill", eventEntry("chunk"));
  await fork.append("a__b", messageEntry({ content: "main" }));
  await fork.mergeBack();
  const main = parent.read("a__b")!;
  assert.deepEqual(main.map((e) => e.kind), ["message", "event"]);
  assert.deepEqual(main[1]?.payload, {
    name: "sidecar.merge",
    data: { tape: "a__b__sidecar__spill", status: "error", error: "sidecar disk full" },
  });
  assert.equal(main[1]?.meta.context, false);
});
