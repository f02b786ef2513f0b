import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { admitDecision, type TurnSnapshot } from "../../src/kernel/channel.ts";
import { ChannelMessage } from "../../src/kernel/channel_message.ts";
import { admitBy, channelFixture, contents, openManager, settle } from "./_fixtures.ts";

function message(
  content: string,
  extra: Partial<ConstructorParameters<typeof ChannelMessage>[0]> = {},
) {
  return new ChannelMessage({
    sessionId: "memory:1",
    channel: "memory",
    chatId: "1",
    content,
    ...extra,
  });
}

const followUp = admitBy((content) =>
  content.startsWith("f") ? admitDecision("follow_up", "busy") : null
);

describe("turn admission (kernel §8.5)", () => {
  test("100: with admitMessage returning null, a second message for a busy session runs concurrently", async () => {
    using fx = channelFixture();
    await using open = await openManager(fx.framework);
    assert.equal(await open.dispatch(message("one")), true);
    await fx.model.waitForCalls(1);
    assert.equal(await open.dispatch(message("two")), true);
    await fx.model.waitForCalls(2);
    assert.equal(open.manager.sessionSnapshot("memory:1")?.runningCount, 2);
    fx.model.find("two").release();
    assert.deepEqual(contents(await fx.channel().waitForSent(1)), ["reply:two"]);
    fx.model.find("one").release();
    assert.deepEqual(contents(await fx.channel().waitForSent(2)), ["reply:two", "reply:one"]);
  });

  test("101: follow_up while a turn runs queues; queued messages then run one at a time in FIFO order", async () => {
    using fx = channelFixture({ admit: followUp });
    await using open = await openManager(fx.framework);
    await open.dispatch(message("first"));
    await fx.model.waitForCalls(1);
    assert.equal(await open.dispatch(message("f-second")), false);
    assert.equal(await open.dispatch(message("f-third")), false);
    assert.deepEqual(open.manager.sessionSnapshot("memory:1"), {
      sessionId: "memory:1",
      isRunning: true,
      runningCount: 1,
      pendingCount: 2,
      steeringCount: 0,
    });
    fx.model.call(0).release();
    await fx.model.waitForCalls(2);
    assert.equal(fx.model.call(1).prompt, "f-second");
    await settle();
    assert.equal(fx.model.calls.length, 2, "the third message waits while the second runs");
    assert.equal(open.manager.sessionSnapshot("memory:1")?.pendingCount, 1);
    fx.model.call(1).release();
    await fx.model.waitForCalls(3);
    assert.equal(fx.model.call(2).prompt, "f-third");
    fx.model.call(2).release();
    const sent = await fx.channel().waitForSent(3);
    assert.deepEqual(contents(sent), ["reply:first", "reply:f-second", "reply:f-third"]);
    await settle();
    assert.equal(open.manager.sessionSnapshot("memory:1"), null, "an empty controller is dropped");
  });

  test("102: follow_up with no running turn processes the message immediately", async () => {
    using fx = channelFixture({ admit: followUp });
    await using open = await openManager(fx.framework);
    assert.equal(await open.dispatch(message("f-alone")), true);
    await fx.model.waitForCalls(1);
    fx.model.call(0).release();
    assert.deepEqual(contents(await fx.channel().waitForSent(1)), ["reply:f-alone"]);
  });

  test("103/125: drop discards the message without queueing", async () => {
    using fx = channelFixture({
      admit: admitBy((c) => c === "noise" ? admitDecision("drop", "spam") : null),
    });
    await using open = await openManager(fx.framework);
    await open.dispatch(message("real"));
    await fx.model.waitForCalls(1);
    assert.equal(await open.dispatch(message("noise")), false);
    assert.equal(open.manager.sessionSnapshot("memory:1")?.pendingCount, 0);
    fx.model.call(0).release();
    await fx.channel().waitForSent(1);
    await settle();
    assert.equal(fx.model.calls.length, 1);
    assert.equal(await open.dispatch(message("noise")), false, "an idle session drops it too");
    await settle();
    assert.equal(fx.model.calls.length, 1);
    assert.equal(open.manager.sessionSnapshot("memory:1"), null);
  });

  test("104/125: steer while a turn runs goes to the steering inbox with steering_reason and is not scheduled", async () => {
    const steer = admitBy((c, running) =>
      running && c.startsWith("s") ? admitDecision("steer", "typing") : null
    );
    using fx = channelFixture({ admit: steer });
    await using open = await openManager(fx.framework);
    await open.dispatch(message("first"));
    await fx.model.waitForCalls(1);
    const steered = message("s-more");
    assert.equal(await open.dispatch(steered), false);
    const inbox = fx.framework.getSteeringInbox();
    assert.ok(inbox);
    assert.equal(inbox.messageCount({ session_id: "memory:1" }), 1);
    assert.equal(steered.context.steering_reason, "typing");
    assert.equal(open.manager.sessionSnapshot("memory:1")?.steeringCount, 1);
    assert.equal(open.manager.sessionSnapshot("memory:1")?.pendingCount, 0);
    await settle();
    assert.equal(fx.model.calls.length, 1, "the steered message started no turn");
    const drained = await inbox.drainMessages({ session_id: "memory:1" });
    assert.deepEqual(drained, [steered]);
    fx.model.call(0).release();
    await fx.channel().waitForSent(1);
  });

  test("125: steer on an idle session runs immediately", async () => {
    using fx = channelFixture({ admit: () => admitDecision("steer", "typing") });
    await using open = await openManager(fx.framework);
    assert.equal(await open.dispatch(message("idle")), true);
    await fx.model.waitForCalls(1);
    fx.model.call(0).release();
    assert.deepEqual(contents(await fx.channel().waitForSent(1)), ["reply:idle"]);
  });

  test("105: steer without a steering inbox falls back to follow-up", async () => {
    const steer = admitBy((c) => c.startsWith("s") ? admitDecision("steer", "typing") : null);
    using fx = channelFixture({ admit: steer });
    await using open = await openManager(fx.framework, { running: false });
    assert.equal(fx.framework.getSteeringInbox(), null);
    await open.dispatch(message("first"));
    await fx.model.waitForCalls(1);
    assert.equal(await open.dispatch(message("s-next")), false);
    assert.equal(open.manager.sessionSnapshot("memory:1")?.pendingCount, 1);
    fx.model.call(0).release();
    await fx.model.waitForCalls(2);
    assert.equal(fx.model.call(1).prompt, "s-next");
    fx.model.call(1).release();
    assert.deepEqual(contents(await fx.channel().waitForSent(2)), ["reply:first", "reply:s-next"]);
  });

  test("106: admission uses the resolved session id, written back onto the message", async () => {
    const seen: { sessionId: string; turn: TurnSnapshot }[] = [];
    using fx = channelFixture({
      admit: ({ sessionId, turn }) => {
        seen.push({ sessionId, turn });
        return null;
      },
      hooks: { resolveSession: ({ message }) => `resolved:${(message as ChannelMessage).chatId}` },
    });
    await using open = await openManager(fx.framework);
    const raw = message("hello", { sessionId: "raw-id", chatId: "7" });
    assert.equal(await open.dispatch(raw), true);
    assert.equal(raw.sessionId, "resolved:7");
    await fx.model.waitForCalls(1);
    assert.equal(fx.model.call(0).sessionId, "resolved:7");
    assert.equal(open.manager.sessionSnapshot("resolved:7")?.runningCount, 1);
    assert.equal(open.manager.sessionSnapshot("raw-id"), null);
    await open.dispatch(message("again", { sessionId: "raw-id", chatId: "7" }));
    assert.equal(seen[1]?.sessionId, "resolved:7");
    assert.equal(seen[1]?.turn.sessionId, "resolved:7");
    assert.equal(seen[1]?.turn.isRunning, true);
    assert.ok(Object.isFrozen(seen[1]?.turn));
    await fx.model.waitForCalls(2);
    fx.model.call(0).release();
    fx.model.call(1).release();
    await fx.channel().waitForSent(2);
  });

  test("107: an exception in admitMessage notifies stage admit_message and still processes the message", async () => {
    using fx = channelFixture({
      admit: () => {
        throw new Error("policy broke");
      },
    });
    await using open = await openManager(fx.framework);
    assert.equal(await open.dispatch(message("go")), true);
    assert.deepEqual(fx.errors.map(([stage]) => stage), ["admit_message"]);
    assert.match(String(fx.errors[0]?.[1]), /policy broke/);
    await fx.model.waitForCalls(1);
    fx.model.call(0).release();
    const sent = await fx.channel().waitForSent(2);
    assert.ok(contents(sent).includes("reply:go"));
    assert.ok(sent.some((m) => m.kind === "error" && m.content.includes("admit_message")));
  });

  test("108: an exception in resolveSession notifies stage resolve_session and drops the message", async () => {
    using fx = channelFixture({
      hooks: {
        resolveSession: () => {
          throw new Error("no session");
        },
      },
    });
    await using open = await openManager(fx.framework);
    assert.equal(await open.dispatch(message("lost")), false);
    assert.deepEqual(fx.errors.map(([stage]) => stage), ["resolve_session"]);
    await settle();
    assert.equal(fx.model.calls.length, 0);
    assert.equal(open.manager.sessionSnapshot("memory:1"), null);
  });

  test("109: admission never enters the message's lifespan", async () => {
    const touched: PropertyKey[] = [];
    const lifespan = new Proxy({ [Symbol.asyncDispose]: () => Promise.resolve() }, {
      get(target, key, receiver) {
        touched.push(key);
        return Reflect.get(target, key, receiver);
      },
    });
    let entered = 0;
    const decisions = [
      admitDecision("drop"),
      admitDecision("follow_up"),
      admitDecision("steer"),
      null,
    ];
    let next = 0;
    using fx = channelFixture({
      admit: () => decisions[next++] ?? null,
      hooks: {
        loadState: ({ message, sessionId }) => {
          if ((message as ChannelMessage).lifespan) entered++;
          return { session_id: sessionId };
        },
      },
    });
    await using open = await openManager(fx.framework);
    for (let i = 0; i < decisions.length; i++) {
      await open.manager.admit(message(`m${i}`, { lifespan }));
    }
    assert.deepEqual(touched, []);
    assert.equal(entered, 0);
    const processed = message("run", { lifespan });
    await open.dispatch(processed);
    await fx.model.waitForCalls(1);
    assert.equal(entered, 1, "only a processed message reaches loadState");
    fx.model.call(0).release();
    await fx.channel().waitForSent(1);
  });

  test("unknown admission actions are processed", async () => {
    using fx = channelFixture({ admit: () => ({ action: "later" as "process", reason: null }) });
    await using open = await openManager(fx.framework);
    assert.equal(await open.dispatch(message("odd")), true);
    await fx.model.waitForCalls(1);
    fx.model.call(0).release();
    await fx.channel().waitForSent(1);
  });
});
