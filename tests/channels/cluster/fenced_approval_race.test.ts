/**
 * Approval decisions in a cluster are compare-and-swap: two instances' fenced tape stores over one
 * PostgreSQL database decide the same approval id at the same instant (`appendIfLast` from the same
 * newest id, as `_approval_decisions.ts` does), round after round; exactly one decision lands.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { FencedTapeStore } from "../../../src/channels/cluster/_fenced_store.ts";
import { eventEntry } from "../../../src/tape/entry.ts";
import { sessionTapeName } from "../../../src/tape/naming.ts";
import { PostgresTapeStore } from "../../../src/tape/postgres_store.ts";
import { appendIfLast, lastIdOf } from "../../../src/tape/store.ts";
import { TapeQuery } from "../../../src/tape/query.ts";
import { dropSchema, postgresUrl, uniqueSchema } from "../../tape/_postgres.ts";

const url = postgresUrl("cluster approval decision races");
const ROUNDS = 12;

if (url) {
  test("two instances' fenced stores deciding one approval id at once: one decision lands each time", async (t) => {
    const schema = uniqueSchema();
    t.after(() => dropSchema(url, schema));
    await using innerA = new PostgresTapeStore(url, { schema });
    await using innerB = new PostgresTapeStore(url, { schema });
    const a = new FencedTapeStore(innerA);
    const b = new FencedTapeStore(innerB);
    const tape = sessionTapeName("telegram:1", "/w");
    // Instance a holds the session (a turn waits for approval there); b got the button press.
    a.fence("telegram:1", (await innerA.acquireLease("telegram:1", "a", 60_000))!);
    await a.append(tape, eventEntry("approval.request", { id: "call_0" }));
    for (let round = 0; round < ROUNDS; round++) {
      const last = await lastIdOf(a, tape);
      const decide = (store: FencedTapeStore, who: string) =>
        appendIfLast(store, tape, [
          eventEntry("approval.decision", { id: `call_${round}`, by: who }),
        ], last);
      const results = await Promise.all([decide(a, "a"), decide(b, "b")]);
      assert.equal(results.filter(Boolean).length, 1, `round ${round}: ${results}`);
      await a.append(tape, eventEntry("approval.request", { id: `call_${round + 1}` }));
    }
    const decisions = (await new TapeQuery(tape, a).all())
      .filter((entry) => entry.payload.name === "approval.decision");
    assert.equal(decisions.length, ROUNDS);
    assert.deepEqual(
      decisions.map((entry) => (entry.payload.data as { id: string }).id),
      Array.from({ length: ROUNDS }, (_, round) => `call_${round}`),
    );
  });
}
