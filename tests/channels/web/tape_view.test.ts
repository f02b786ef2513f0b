/**
 * The console's tape data over a real InMemoryTapeStore: every tape with its entry count and
 * last activity, newest first; entries searched with `TapeQuery.query` semantics; a missing tape
 * is a `not_found` BubError. And the token helpers: minting, comparison, the Bearer header.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { BubError } from "../../../src/kernel/errors.ts";
import { createEntry, messageEntry } from "../../../src/tape/entry.ts";
import { InMemoryTapeStore } from "../../../src/tape/memory_store.ts";
import { tapeEntries, tapeSummaries } from "../../../src/channels/web/tape_view.ts";
import { hasBearerToken, newAccessToken, sameToken } from "../../../src/channels/web/auth.ts";

const at = (day: number) => `2026-11-0${day}T10:00:00.000000+00:00`;

describe("web console tape view", () => {
  test("lists every tape newest first with counts; searches entries; a missing tape is not_found", async () => {
    const store = new InMemoryTapeStore();
    await store.append("old", messageEntry({ role: "user", content: "hello" }, {}));
    await store.append("old", createEntry("message", { role: "user", content: "x" }, {}, at(1)));
    await store.append("new", createEntry("message", { role: "user", content: "y" }, {}, at(5)));
    await store.append("mid", createEntry("message", { role: "user", content: "z" }, {}, at(3)));
    await store.append(
      "mid",
      createEntry("message", { role: "user", content: "Needle" }, {}, at(4)),
    );
    const { tapes: rows, next } = await tapeSummaries(store);
    assert.deepEqual(rows.map((row) => [row.name, row.entries, row.last_activity]), [
      ["new", 1, at(5)],
      ["mid", 2, at(4)],
      ["old", 2, at(1)],
    ]);
    assert.equal(next, null);
    const found = await tapeEntries(store, "mid", "needle");
    assert.deepEqual(found.map((entry) => entry.payload.content), ["Needle"]);
    assert.equal((await tapeEntries(store, "mid")).length, 2);
    await assert.rejects(
      () => tapeEntries(store, "gone"),
      (error: unknown) => BubError.isInstance(error) && (error as BubError).kind === "not_found",
    );
  });

  test("tokens: random hex, compared exactly, accepted only as a Bearer header", () => {
    const token = newAccessToken();
    assert.match(token, /^[0-9a-f]{64}$/);
    assert.notEqual(newAccessToken(), token);
    assert.ok(sameToken(token, token));
    assert.ok(!sameToken(token, token.slice(0, -1)));
    assert.ok(!sameToken(token + "0", token));
    const headers = (init: Record<string, string>) => new Headers(init);
    assert.ok(hasBearerToken(token, headers({ authorization: `Bearer ${token}` })));
    assert.ok(hasBearerToken(token, headers({ authorization: `bearer  ${token} ` })));
    assert.ok(!hasBearerToken(token, headers({ cookie: `bub_token=${token}` })));
    assert.ok(!hasBearerToken(token, headers({ authorization: "Bearer" })));
    assert.ok(!hasBearerToken(token, headers({ authorization: `Bearer ${token} x` })));
    assert.ok(!hasBearerToken(token, headers({ authorization: `Basic ${token}` })));
  });
});
