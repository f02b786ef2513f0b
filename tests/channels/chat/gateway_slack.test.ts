/**
 * `bub gateway --enable-channel slack` as a real subprocess: the fake Slack delivers signed
 * Events API webhooks to the gateway's webhook server and receives the answers through its fake
 * Web API (`BUB_SLACK_API_BASE`); the mock model answers. With `stream_output` the answer is
 * streamed into one thread message (posted, then edited).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { FakeSlackServer } from "../../../src/testing/fake_slack.ts";
import { MockLlmServer } from "../../../src/testing/mock_llm_server.ts";
import {
  BIN,
  type Child,
  childEnv,
  runtimeCommand,
  startChild,
  type TempDirs,
  tempDirs,
} from "../../cli/_spawn.ts";
import { echoModel } from "./_echo_model.ts";

describe("bub gateway serving Slack through the Chat SDK", () => {
  let dirs: TempDirs;
  let slack: FakeSlackServer;
  let model: MockLlmServer;
  let gateway: Child;
  let webhook: string;
  const ALLOWED = "UADA";
  const STRANGER = "UEVE";

  before(async () => {
    dirs = tempDirs("bub-gateway-slack-");
    slack = await FakeSlackServer.start();
    model = await MockLlmServer.start({ script: echoModel });
    gateway = startChild(runtimeCommand(BIN, ["gateway", "--enable-channel", "slack"]), {
      cwd: dirs.workspace,
      env: childEnv(dirs, {
        BUB_MODEL: "custom:x",
        BUB_API_BASE: model.url,
        BUB_API_KEY: "sk-gateway",
        BUB_SLACK_BOT_TOKEN: slack.botToken,
        BUB_SLACK_SIGNING_SECRET: slack.signingSecret,
        BUB_SLACK_API_BASE: slack.apiBase,
        BUB_SLACK_ALLOW_USERS: ALLOWED,
        BUB_WEBHOOK_PORT: "0",
        BUB_STREAM_OUTPUT: "true",
        BUB_DEBOUNCE_SECONDS: "0.05",
        BUB_MAX_WAIT_SECONDS: "0.5",
      }),
    });
    await gateway.waitFor(/webhooks on http:\/\/127\.0\.0\.1:\d+/, { timeoutMs: 60_000 });
    const base = /webhooks on (http:\/\/127\.0\.0\.1:\d+)/.exec(gateway.stdout)![1];
    webhook = `${base}/webhooks/slack`;
  });

  after(async () => {
    if (gateway && gateway.process.exitCode === null) gateway.process.kill("SIGTERM");
    await gateway?.exited(10_000).catch(() => gateway.kill());
    await model?.close();
    await slack?.close();
    dirs?.remove();
  });

  /** The bot's messages in the thread of `ts`, once one contains `needle`. */
  async function thread(ts: string, needle: string): Promise<string[]> {
    const posted = () =>
      slack.messagesIn("C0001").filter((m) => m.threadTs === ts).map((m) => m.text);
    const end = Date.now() + 30_000;
    while (!posted().some((text) => text.includes(needle))) {
      if (Date.now() > end) {
        throw new Error(`No "${needle}" in thread ${ts}: ${JSON.stringify(slack.log.calls)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return posted();
  }

  /** Waits for a message only `user` sees in the thread of `ts` containing `needle`. */
  async function ephemeral(user: string, ts: string, needle: string): Promise<string> {
    const [call] = await slack.log.waitFor(
      "chat.postEphemeral",
      1,
      (call) =>
        call.params.user === user && call.params.thread_ts === ts &&
        String(call.params.markdown_text ?? call.params.text).includes(needle),
    );
    return String(call!.params.markdown_text ?? call!.params.text);
  }

  function mention(user: string, text: string): Record<string, unknown> {
    return slack.messageEvent(user, `<@${slack.botUserId}> ${text}`);
  }

  function tsOf(event: Record<string, unknown>): string {
    return (event.event as { ts: string }).ts;
  }

  test("a mention is answered in its thread, streamed into one message that is edited", async () => {
    const event = mention(ALLOWED, "hello bub");
    assert.equal((await slack.deliver(webhook, event)).status, 200);
    const texts = await thread(tsOf(event), "You said: hello bub");
    // One message: the streamed one, not a second post of the final answer.
    assert.deepEqual(texts, ["You said: hello bub"]);
    const edits = slack.callsOf("chat.update").map((call) => call.params.markdown_text);
    assert.ok(edits.includes("You said: hello bub"), JSON.stringify(edits));
    // Typing: the thread's status is set while the turn runs.
    const typing = slack.callsOf("assistant.threads.setStatus");
    assert.ok(typing.some((call) => call.params.thread_ts === tsOf(event)));
    assert.match(gateway.stdout, /serving slack/);
  });

  test("a direct message (no mention) is answered in the DM, posted then edited as it streams", async () => {
    const event = slack.messageEvent(ALLOWED, "hello in private", { direct: true });
    assert.equal((await slack.deliver(webhook, event)).status, 200);
    const end = Date.now() + 30_000;
    const answer = () => slack.messagesIn("D0001").at(-1)?.text ?? "";
    while (!answer().includes("You said: hello in private")) {
      if (Date.now() > end) throw new Error(JSON.stringify(slack.log.calls.slice(-8)));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // A top-level DM is one conversation: the answer goes to it, not into a thread.
    assert.deepEqual(slack.messagesIn("D0001"), [
      { ts: slack.messagesIn("D0001")[0]!.ts, text: "You said: hello in private", threadTs: null },
    ]);
    const edits = slack.callsOf("chat.update").filter((call) => call.params.channel === "D0001");
    assert.ok(edits.length >= 1);
  });

  test("a rate-limited post (429, Retry-After) is retried and the answer still arrives once", async () => {
    slack.rateLimit("chat.postMessage");
    const event = mention(ALLOWED, "despite the limit");
    await slack.deliver(webhook, event);
    assert.deepEqual(await thread(tsOf(event), "You said: despite the limit"), [
      "You said: despite the limit",
    ]);
    const limited = slack.callsOf("chat.postMessage").filter((call) => call.params.rateLimited);
    assert.equal(limited.length, 1);
  });

  test("a burst of follow-ups in one thread is not dropped: every message reaches the model", async () => {
    const first = mention(ALLOWED, "start a thread");
    await slack.deliver(webhook, first);
    await thread(tsOf(first), "You said: start a thread");
    const words = ["alpha", "bravo", "charlie", "delta"];
    const responses = await Promise.all(
      words.map((word) =>
        slack.deliver(webhook, slack.messageEvent(ALLOWED, word, { threadTs: tsOf(first) }))
      ),
    );
    assert.deepEqual(responses.map((response) => response.status), [200, 200, 200, 200]);
    const end = Date.now() + 30_000;
    const asked = () => model.requests.map((request) => JSON.stringify(request.body)).join("\n");
    while (!words.every((word) => asked().includes(word))) {
      if (Date.now() > end) {
        assert.fail(`missing: ${words.filter((word) => !asked().includes(word)).join(", ")}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  test("a forged or missing signature gets 401 and runs nothing", async () => {
    const before = model.requests.length;
    const forgedEvent = mention(ALLOWED, "forged");
    const forged = await slack.deliver(webhook, forgedEvent, { secret: "wrong" });
    assert.equal(forged.status, 401);
    const unsignedEvent = mention(ALLOWED, "unsigned");
    const unsigned = await slack.deliver(webhook, unsignedEvent, { unsigned: true });
    assert.equal(unsigned.status, 401);
    const later = mention(ALLOWED, "after the forgery");
    await slack.deliver(webhook, later);
    await thread(tsOf(later), "You said: after the forgery");
    const asked = model.requests.slice(before).map((request) => JSON.stringify(request.body));
    assert.ok(asked.every((body) => !body.includes("forged") && !body.includes("unsigned")));
    const touched = slack.log.calls.filter((call) =>
      [tsOf(forgedEvent), tsOf(unsignedEvent)].some((ts) =>
        call.params.thread_ts === ts || call.params.ts === ts
      )
    );
    assert.deepEqual(touched, []);
  });

  test("a stranger is refused in a message only they see, and the model never sees theirs", async () => {
    const before = model.requests.length;
    const event = mention(STRANGER, "let me in");
    await slack.deliver(webhook, event);
    assert.equal(await ephemeral(STRANGER, tsOf(event), "Access denied."), "Access denied.");
    assert.deepEqual(slack.messagesIn("C0001").filter((m) => m.threadTs === tsOf(event)), []);
    const later = mention(ALLOWED, "after the stranger");
    await slack.deliver(webhook, later);
    await thread(tsOf(later), "You said: after the stranger");
    const asked = model.requests.slice(before).map((request) => JSON.stringify(request.body));
    assert.ok(asked.every((body) => !body.includes("let me in")));
  });

  test("a comma command runs for an allowed user and is refused to a stranger", async () => {
    const before = model.requests.length;
    const mine = mention(ALLOWED, ",help");
    await slack.deliver(webhook, mine);
    const [help] = await thread(tsOf(mine), "Commands start with ','");
    assert.match(help!, /,tape\.info/);
    const theirs = mention(STRANGER, ",help");
    await slack.deliver(webhook, theirs);
    // Not on allow_users: refused (only they see it) before any command runs.
    await ephemeral(STRANGER, tsOf(theirs), "Access denied.");
    assert.deepEqual(slack.messagesIn("C0001").filter((m) => m.threadTs === tsOf(theirs)), []);
    assert.equal(model.requests.length, before);
  });

  test("a redelivery of the same event (Slack retry headers) is answered once", async () => {
    const event = mention(ALLOWED, "only once");
    const eventId = String(event.event_id);
    assert.equal((await slack.deliver(webhook, event)).status, 200);
    await thread(tsOf(event), "You said: only once");
    for (const retryNum of [1, 2, undefined]) {
      // Retries carry X-Slack-Retry-Num; the last one does not (the message itself repeats).
      const again = await slack.deliver(webhook, event, { eventId, retryNum });
      assert.equal(again.status, 200);
    }
    const later = mention(ALLOWED, "after the retries");
    await slack.deliver(webhook, later);
    await thread(tsOf(later), "You said: after the retries");
    assert.deepEqual(
      slack.messagesIn("C0001").filter((m) => m.threadTs === tsOf(event)).map((m) => m.text),
      ["You said: only once"],
    );
    const asked = model.requests.map((request) => JSON.stringify(request.body));
    assert.equal(asked.filter((body) => body.includes("only once")).length, 1);
  });

  test("a body over the limit is refused with 413 while it streams in", async () => {
    const huge = new ReadableStream<Uint8Array>({
      start(controller) {
        const chunk = new Uint8Array(64 * 1024).fill(0x20);
        for (let i = 0; i < 40; i++) controller.enqueue(chunk);
        controller.close();
      },
    });
    const response = await fetch(webhook, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: huge,
      duplex: "half",
    } as RequestInit);
    assert.equal(response.status, 413);
    await response.body?.cancel();
  });

  test("SIGTERM stops the gateway cleanly with exit code 0", async () => {
    process.kill(gateway.process.pid!, "SIGTERM");
    assert.equal(await gateway.exited(10_000), 0);
  });
});
