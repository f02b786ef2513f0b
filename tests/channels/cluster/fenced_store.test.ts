import assert from "node:assert/strict";
import { test } from "node:test";
import { FencedTapeStore, sessionHash } from "../../../src/channels/cluster/_fenced_store.ts";
import { BubError } from "../../../src/kernel/errors.ts";
import { eventEntry } from "../../../src/tape/entry.ts";
import { sessionTapeName } from "../../../src/tape/naming.ts";
import { PostgresTapeStore } from "../../../src/tape/postgres_store.ts";
import { TapeQuery } from "../../../src/tape/query.ts";
import { dropSchema, postgresUrl, uniqueSchema } from "../../tape/_postgres.ts";

const url = postgresUrl("cluster fenced tape store");

test("a session tape name's second part is the session hash", () => {
  assert.equal(sessionTapeName("telegram:1", "/w").split("__")[1], sessionHash("telegram:1"));
});

if (url) {
  test("appends to a leased session's tapes are fenced; a takeover stops them for good", async (t) => {
    const schema = uniqueSchema();
    t.after(() => dropSchema(url, schema));
    await using inner = new PostgresTapeStore(url, { schema });
    const store = new FencedTapeStore(inner);
    const tape = sessionTapeName("telegram:1", "/w");
    const other = sessionTapeName("telegram:2", "/w");
    const lease = (await inner.acquireLease("telegram:1", "a", 60_000))!;
    store.fence("telegram:1", lease);
    await store.append(tape, eventEntry("one"));
    await store.append(`${tape}__spill`, eventEntry("sidecar"));
    assert.equal(store.leaseOf(`${tape}__spill`)?.epoch, lease.epoch);
    assert.equal(store.isLost("telegram:1"), false);
    // Another instance takes the session over (the lease was released or expired).
    await inner.releaseLease(lease);
    assert.ok(await inner.acquireLease("telegram:1", "b", 60_000));
    await assert.rejects(
      store.appendMany(tape, [eventEntry("two")]),
      (error) => BubError.isInstance(error) && error.details?.reason === "lease_lost",
    );
    assert.equal(store.isLost("telegram:1"), true);
    await store.append(other, eventEntry("unfenced"));
    const names = (await new TapeQuery(tape, store).all()).map((entry) => entry.payload.name);
    assert.deepEqual(names, ["one"]);
    assert.equal((await new TapeQuery(other, store).all()).length, 1);
    // Fenced again with a new lease: no longer lost.
    const next = (await inner.acquireLease("telegram:3", "a", 60_000))!;
    store.fence("telegram:1", next);
    assert.equal(store.isLost("telegram:1"), false);
  });
}
