import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { InMemorySteeringInbox } from "../../src/channels/steering_inbox.ts";
import { kernelFixture } from "../_helpers/kernel.ts";

describe("InMemorySteeringInbox", () => {
  test("InMemorySteeringInbox keys by _runtime_thread_id, then session_id, then 'default'; draining empties the key", async () => {
    const inbox = new InMemorySteeringInbox();
    const thread = { _runtime_thread_id: "t1", session_id: "s1" };
    const session = { session_id: "s1" };
    const fallback = { _runtime_thread_id: "", session_id: null };
    await inbox.enqueueMessage({ content: "to thread 1" }, thread);
    await inbox.enqueueMessage({ content: "to thread 2" }, { _runtime_thread_id: "t1" });
    await inbox.enqueueMessage({ content: "to session" }, session);
    await inbox.enqueueMessage({ content: "to default" }, fallback);
    assert.deepEqual(
      [inbox.messageCount(thread), inbox.messageCount(session), inbox.messageCount({})],
      [2, 1, 1],
    );
    assert.deepEqual(await inbox.drainMessages(thread), [{ content: "to thread 1" }, {
      content: "to thread 2",
    }]);
    assert.equal(inbox.messageCount(thread), 0);
    assert.deepEqual(await inbox.drainMessages(thread), []);
    assert.deepEqual(await inbox.drainMessages({ session_id: "s1" }), [{ content: "to session" }]);
    assert.deepEqual(await inbox.drainMessages({}), [{ content: "to default" }]);
    assert.equal(inbox.messageCount({ session_id: "never" }), 0);
  });

  test("steerMessage enqueues into the scope's inbox with the steering reason and returns false without one", async () => {
    using fx = kernelFixture();
    const message = { content: "also this", context: { user: "ann" } };
    assert.equal(await fx.framework.steerMessage({ message, sessionId: "s", state: {} }), false);
    const inbox = new InMemorySteeringInbox();
    fx.framework.register({ name: "inbox", provideSteeringInbox: () => inbox });
    await using _scope = await fx.framework.running();
    const state: Record<string, unknown> = {};
    assert.equal(
      await fx.framework.steerMessage({ message, sessionId: "s", state, reason: "busy" }),
      true,
    );
    assert.equal(state.session_id, "s");
    assert.deepEqual(await inbox.drainMessages(state), [
      { content: "also this", context: { user: "ann", steering_reason: "busy" } },
    ]);
  });
});
