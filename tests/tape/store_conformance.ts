/**
 * The store conformance suite: every TapeStore must pass it.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { BubError } from "../../src/kernel/errors.ts";
import { anchorEntry, eventEntry, messageEntry, type TapeEntry } from "../../src/tape/entry.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import type { TapeStore } from "../../src/tape/store.ts";
import { entryAt } from "./_helpers.ts";

/** A store under test and how to dispose of it. */
export interface StoreFixture {
  store: TapeStore;
  cleanup: () => Promise<void>;
}

function ids(entries: readonly TapeEntry[]): number[] {
  return entries.map((entry) => entry.id);
}

function user(content: string): TapeEntry {
  return messageEntry({ role: "user", content });
}

/** Registers the suite for one store kind. */
export function describeStoreConformance(name: string, make: () => Promise<StoreFixture>): void {
  describe(`store conformance: ${name}`, () => {
    async function withStore(fn: (store: TapeStore) => Promise<void>): Promise<void> {
      const { store, cleanup } = await make();
      try {
        await fn(store);
      } finally {
        await cleanup();
      }
    }

    test("ids start at 1 per tape and increase by one; the given id is ignored", () =>
      withStore(async (store) => {
        await store.append("a__b", { ...user("one"), id: 99 });
        await store.append("a__b", user("two"));
        await store.append("c__d", user("other"));
        const entries = await new TapeQuery("a__b", store).all();
        assert.deepEqual(ids(entries), [1, 2]);
        assert.deepEqual(entries.map((e) => e.payload.content), ["one", "two"]);
        assert.deepEqual(ids(await new TapeQuery("c__d", store).all()), [1]);
      }));

    test("appended entries read back with kind, payload, meta and date unchanged", () =>
      withStore(async (store) => {
        const entry = entryAt(
          "event",
          { name: "x", data: { n: 1.5, s: "é😀", l: [1, null, true] } },
          "2026-08-21T14:51:51.123456+00:00",
          { run_id: "run-1", context: false },
        );
        await store.append("a__b", entry);
        const [read] = await new TapeQuery("a__b", store).all();
        assert.deepEqual(read, { ...entry, id: 1 });
      }));

    test("a tape that does not exist reads as empty", () =>
      withStore(async (store) => {
        assert.deepEqual(await new TapeQuery("none__x", store).all(), []);
      }));

    test("reset removes the tape and restarts its ids", () =>
      withStore(async (store) => {
        await store.append("a__b", user("one"));
        await store.reset("a__b");
        await store.reset("never__existed");
        assert.deepEqual(await new TapeQuery("a__b", store).all(), []);
        await store.append("a__b", user("again"));
        assert.deepEqual(ids(await new TapeQuery("a__b", store).all()), [1]);
      }));

    test("listTapes is sorted", () =>
      withStore(async (store) => {
        await store.append("z__z", user("1"));
        await store.append("a__a", user("1"));
        const tapes = await store.listTapes();
        assert.deepEqual(tapes.filter((t) => t === "a__a" || t === "z__z"), ["a__a", "z__z"]);
      }));

    test("lastAnchor() on a tape without anchors throws not_found `No anchors found in tape.`", () =>
      withStore(async (store) => {
        await store.append("a__b", user("x"));
        await assert.rejects(new TapeQuery("a__b", store).lastAnchor().all(), (error: unknown) => {
          assert.ok(BubError.isInstance(error));
          assert.equal(error.kind, "not_found");
          assert.equal(error.message, "No anchors found in tape.");
          assert.equal(error.details?.tape, "a__b");
          return true;
        });
      }));

    test("afterAnchor('x') for a missing anchor throws `Anchor 'x' was not found.`", () =>
      withStore(async (store) => {
        await store.append("a__b", anchorEntry("y"));
        await assert.rejects(new TapeQuery("a__b", store).afterAnchor("x").all(), {
          kind: "not_found",
          message: "Anchor 'x' was not found.",
        });
      }));

    test("lastAnchor and afterAnchor select entries after the last matching anchor", () =>
      withStore(async (store) => {
        for (
          const e of [
            anchorEntry("a"),
            user("1"),
            anchorEntry("b"),
            user("2"),
            anchorEntry("a"),
            user("3"),
            anchorEntry("c"),
            user("4"),
          ]
        ) {
          await store.append("a__b", e);
        }
        assert.deepEqual(ids(await new TapeQuery("a__b", store).lastAnchor().all()), [8]);
        assert.deepEqual(ids(await new TapeQuery("a__b", store).afterAnchor("a").all()), [6, 7, 8]);
        assert.deepEqual(
          ids(await new TapeQuery("a__b", store).afterAnchor("a").afterAnchor("").all()).length,
          8,
        );
      }));

    test("betweenAnchors(s,e) returns only entries strictly between the last s and the next e", () =>
      withStore(async (store) => {
        for (
          const e of [
            anchorEntry("s"),
            user("old"),
            anchorEntry("e"),
            anchorEntry("s"),
            user("1"),
            user("2"),
            anchorEntry("e"),
            user("after"),
            anchorEntry("e"),
          ]
        ) {
          await store.append("a__b", e);
        }
        const entries = await new TapeQuery("a__b", store).betweenAnchors("s", "e").all();
        assert.deepEqual(ids(entries), [5, 6]);
        await assert.rejects(new TapeQuery("a__b", store).betweenAnchors("s", "zz").all(), {
          message: "Anchor 'zz' was not found.",
        });
      }));

    test("betweenDates with one day includes the whole day; start after end throws the ordering error", () =>
      withStore(async (store) => {
        await store.append(
          "a__b",
          entryAt("message", { content: "before" }, "2025-12-31T23:59:59.999999+00:00"),
        );
        await store.append(
          "a__b",
          entryAt("message", { content: "morning" }, "2026-01-01T00:00:00+00:00"),
        );
        await store.append(
          "a__b",
          entryAt("message", { content: "night" }, "2026-01-01T23:59:59.999999+00:00"),
        );
        await store.append(
          "a__b",
          entryAt("message", { content: "aware" }, "2026-01-02T01:00:00+02:00"),
        );
        await store.append(
          "a__b",
          entryAt("message", { content: "next" }, "2026-01-02T00:00:00+00:00"),
        );
        const day = await new TapeQuery("a__b", store).betweenDates("2026-01-01", "2026-01-01")
          .all();
        assert.deepEqual(day.map((e) => e.payload.content), ["morning", "night", "aware"]);
        await assert.rejects(
          new TapeQuery("a__b", store).betweenDates("2026-01-02", "2026-01-01").all(),
          {
            kind: "invalid_input",
            message: "Start date must be earlier than or equal to end date.",
          },
        );
      }));

    test("betweenDates with only a start fails with `Invalid ISO date or datetime: ''.`", () =>
      withStore(async (store) => {
        await store.append("a__b", user("x"));
        await assert.rejects(new TapeQuery("a__b", store).betweenDates("2026-01-01", "").all(), {
          kind: "invalid_input",
          message: "Invalid ISO date or datetime: ''.",
        });
        await assert.rejects(
          new TapeQuery("a__b", store).betweenDates("2026-13-01", "2026-01-01").all(),
          {
            message: "Invalid ISO date or datetime: '2026-13-01'.",
          },
        );
      }));

    test("kinds and limit filter after the anchor slice, limit keeps the first n", () =>
      withStore(async (store) => {
        for (const e of [user("1"), eventEntry("e"), user("2"), user("3")]) {
          await store.append("a__b", e);
        }
        const q = new TapeQuery("a__b", store);
        assert.deepEqual(ids(await q.kinds("message").all()), [1, 3, 4]);
        assert.deepEqual(ids(await q.kinds("message").limit(2).all()), [1, 3]);
        assert.deepEqual(ids(await q.kinds("event", "message").limit(0).all()), []);
      }));

    test("text query matches payload text case-insensitively", () =>
      withStore(async (store) => {
        await store.append("a__b", messageEntry({ role: "user", content: "Hello WORLD" }));
        await store.append(
          "a__b",
          messageEntry({ role: "user", content: "other" }, { run_id: "Run-XYZ" }),
        );
        await store.append("a__b", eventEntry("Special-Event"));
        const hits = async (text: string) =>
          (await new TapeQuery("a__b", store).query(text).all()).map((e) => e.id).sort();
        assert.deepEqual(await hits("hello world"), [1]);
        assert.deepEqual(await hits("special-event"), [3]);
        assert.deepEqual(await hits("no such text"), []);
      }));

    test("stored entries are immutable copies", () =>
      withStore(async (store) => {
        const entry = user("x");
        await store.append("a__b", entry);
        (entry.payload as Record<string, unknown>).content = "changed";
        const [read] = await new TapeQuery("a__b", store).all();
        assert.equal(read?.payload.content, "x");
        assert.throws(() => {
          (read!.payload as Record<string, unknown>).content = "mutated";
        }, TypeError);
      }));

    test("non-object payloads, invalid dates and bad tape names are TypeErrors naming the tape; nothing stored is lost", () =>
      withStore(async (store) => {
        await store.append("a__b", user("kept"));
        const bad = [
          { ...user("x"), payload: [1] },
          { ...user("x"), payload: "text" },
          { ...user("x"), date: "not a date" },
          { ...user("x"), kind: "" },
          { ...user("x"), meta: 3 },
        ];
        for (const entry of bad) {
          await assert.rejects(
            store.append("a__b", entry as unknown as TapeEntry),
            (error: unknown) => {
              assert.ok(error instanceof TypeError, String(error));
              assert.match(error.message, /tape "a__b"/);
              return true;
            },
          );
        }
        await assert.rejects(store.append("../escape", user("x")), TypeError);
        const entries = await new TapeQuery("a__b", store).all();
        assert.deepEqual(entries.map((e) => e.payload.content), ["kept"]);
        await store.append("a__b", user("next"));
        assert.deepEqual(ids(await new TapeQuery("a__b", store).all()), [1, 2]);
      }));

    test("appendMany stores a batch in order with consecutive ids", () =>
      withStore(async (store) => {
        await store.append("a__b", user("0"));
        const batch = Array.from({ length: 5 }, (_, i) => user(String(i + 1)));
        if (store.appendMany) await store.appendMany("a__b", batch);
        else for (const e of batch) await store.append("a__b", e);
        const entries = await new TapeQuery("a__b", store).all();
        assert.deepEqual(ids(entries), [1, 2, 3, 4, 5, 6]);
        assert.deepEqual(entries.map((e) => e.payload.content), ["0", "1", "2", "3", "4", "5"]);
      }));

    test("concurrent appends from one process get unique gapless ids", () =>
      withStore(async (store) => {
        await Promise.all(
          Array.from({ length: 30 }, (_, i) => store.append("a__b", user(String(i)))),
        );
        const entries = await new TapeQuery("a__b", store).all();
        assert.deepEqual(ids(entries), Array.from({ length: 30 }, (_, i) => i + 1));
        assert.equal(new Set(entries.map((e) => e.payload.content)).size, 30);
      }));
  });
}
