import assert from "node:assert/strict";
import { test } from "node:test";
import { FencedTapeStore, sessionHash } from "../../../src/channels/cluster/_fenced_store.ts";
import { BubError } from "../../../src/kernel/errors.ts";
import { eventEntry } from "../../../src/tape/entry.ts";
import { sessionTapeName } from "../../../src/tape/naming.ts";
import { PostgresTapeStore } from "../../../src/tape/postgres_store.ts";
import { TapeQuery } from "../../../src/tape/query.ts";
import { dropSchema, postgresUrl, uniqueSchema } from "../../tape/_postgres.ts";
import { mockReply, type MockRequest } from "../../../src/testing/_mock_reply.ts";
import { defineTool } from "../../../src/tools/tool.ts";
import { turnFixture } from "../../agent/_turn_fixture.ts";

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

if (url) {
  test("a turn's tool call and the call's start are in the fenced journal, as another instance reads it, before the tool runs", async (t) => {
    const schema = uniqueSchema();
    t.after(() => dropSchema(url, schema));
    await using inner = new PostgresTapeStore(url, { schema });
    await using other = new PostgresTapeStore(url, { schema }); // another instance's view
    const store = new FencedTapeStore(inner);
    let tape = "";
    const seen: unknown[] = [];
    const probe = defineTool({
      name: "probe",
      description: "Reads the journal the way a taker-over would, while it runs.",
      parameters: { type: "object", properties: {} },
      context: true,
      handler: async (_args, ctx) => {
        for (const fork of await other.journalPending(tape)) {
          for (const entry of fork.entries) {
            if (entry.kind === "tool_call") seen.push(["tool_call", entry.payload.calls]);
            if (entry.payload.name === "tool.start") seen.push(["tool.start", entry.payload.data]);
          }
        }
        return `probed ${ctx.callId}`;
      },
    });
    await using fx = await turnFixture({
      tools: [probe],
      plugins: [{ name: "fenced-store", provideTapeStore: () => store }],
      script: (request: MockRequest) =>
        (request.body as { messages: { role: string }[] }).messages.at(-1)?.role === "tool"
          ? mockReply.text("done")
          : mockReply.toolCall("probe", {}, { id: "call_probe" }),
    });
    tape = sessionTapeName("cli:local", fx.home);
    store.fence("cli:local", (await inner.acquireLease("cli:local", "a", 60_000))!);
    const result = await fx.turn("probe it");
    assert.equal(result.modelOutput, "done");
    assert.deepEqual(seen.map((item) => (item as unknown[])[0]), ["tool_call", "tool.start"]);
    assert.equal((seen[0] as [string, { id: string }[]])[1][0]!.id, "call_probe");
    assert.deepEqual((seen[1] as [string, unknown])[1], { call_id: "call_probe", tool: "probe" });
  });
}
