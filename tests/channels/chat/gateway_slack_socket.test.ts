/**
 * `bub gateway --enable-channel slack` in socket mode as a real subprocess (one gateway for the
 * whole file): no signing secret and no webhook server; the gateway asks the fake Slack's
 * `apps.connections.open` for a WebSocket URL with the app token and connects; events and
 * button clicks arrive as envelopes that must each be acknowledged; answers go out through the
 * fake Web API. A `disconnect` message makes the gateway reconnect.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { FakeSlackServer } from "../../../src/testing/fake_slack.ts";
import { type MockReply, mockReply, type MockRequest } from "../../../src/testing/_mock_reply.ts";
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

describe("bub gateway serving Slack in socket mode", () => {
  let dirs: TempDirs;
  let slack: FakeSlackServer;
  let model: MockLlmServer;
  let gateway: Child;
  let effect: string;
  const ADA = "UADA";
  const EVE = "UEVE";

  before(async () => {
    dirs = tempDirs("bub-gateway-slack-socket-");
    effect = join(dirs.workspace, "effect.txt");
    slack = await FakeSlackServer.start();
    model = await MockLlmServer.start({
      // Echoes, except "write the effect", which calls bash (held by the approval rule).
      script: (request: MockRequest): MockReply => {
        const messages = (request.body as { messages: { role: string }[] }).messages;
        if (messages.at(-1)?.role === "tool") return mockReply.text("Effect written.");
        if (JSON.stringify(messages.at(-1)).includes("write the effect")) {
          return mockReply.toolCall("bash", { command: `echo ran >> ${effect}` });
        }
        return echoModel(request);
      },
    });
    gateway = startChild(runtimeCommand(BIN, ["gateway", "--enable-channel", "slack"]), {
      cwd: dirs.workspace,
      env: childEnv(dirs, {
        BUB_MODEL: "custom:x",
        BUB_API_BASE: model.url,
        BUB_API_KEY: "sk-gateway",
        BUB_SLACK_BOT_TOKEN: slack.botToken,
        // An app token and no signing secret: socket mode.
        BUB_SLACK_APP_TOKEN: slack.appToken,
        BUB_SLACK_API_BASE: slack.apiBase,
        BUB_SLACK_ALLOW_USERS: ADA,
        BUB_WEBHOOK_PORT: "0",
        BUB_STREAM_OUTPUT: "true",
        BUB_DEBOUNCE_SECONDS: "0.05",
        BUB_MAX_WAIT_SECONDS: "0.5",
        BUB_APPROVALS: JSON.stringify([
          { tool: "bash", match: "effect\\.txt", reason: "writes the effect file" },
        ]),
      }),
    });
    await gateway.waitFor(/serving slack/, { timeoutMs: 60_000 });
    await slack.socket.waitAccepted(1, 60_000);
  });

  after(async () => {
    if (gateway && gateway.process.exitCode === null) gateway.process.kill("SIGTERM");
    await gateway?.exited(10_000).catch(() => gateway.kill());
    await model?.close();
    await slack?.close();
    dirs?.remove();
  });

  async function until<T>(probe: () => T | undefined | false, what: string): Promise<T> {
    const end = Date.now() + 30_000;
    for (;;) {
      const value = probe();
      if (value !== undefined && value !== false) return value;
      if (Date.now() > end) {
        throw new Error(`Timed out waiting for ${what}: ${JSON.stringify(slack.log.calls)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const inThread = (ts: string) =>
    slack.messagesIn("C0001").filter((m) => m.threadTs === ts).map((m) => m.text);

  /** Sends a mention of the bot by `user` as an `events_api` envelope; returns the event. */
  function mention(user: string, text: string): { event: Record<string, unknown>; ts: string } {
    const event = slack.messageEvent(user, `<@${slack.botUserId}> ${text}`);
    slack.socket.send("events_api", event);
    return { event, ts: (event.event as { ts: string }).ts };
  }

  async function ephemeral(user: string, ts: string): Promise<string> {
    const [call] = await slack.log.waitFor(
      "chat.postEphemeral",
      1,
      (call) => call.params.user === user && call.params.thread_ts === ts,
    );
    return String(call!.params.markdown_text ?? call!.params.text);
  }

  test("a mention over the socket is acknowledged and answered, streamed into one edited message", async () => {
    const { ts } = mention(ADA, "hello socket");
    assert.deepEqual(
      await until(
        () => inThread(ts).includes("You said: hello socket") && inThread(ts),
        "the answer",
      ),
      ["You said: hello socket"],
    );
    const edits = slack.callsOf("chat.update").map((call) => call.params.markdown_text);
    assert.ok(edits.includes("You said: hello socket"), JSON.stringify(edits));
    assert.ok(slack.socket.envelopes[0]!.ack !== null, "the envelope was acknowledged");
    // Socket mode serves no webhooks: the gateway opened no HTTP server for them.
    assert.doesNotMatch(gateway.stdout, /webhooks on/);
    assert.equal(slack.callsOf("apps.connections.open").length, 1);
  });

  test("a stranger is refused in a message only they see; the model never sees theirs", async () => {
    const before = model.requests.length;
    const { ts } = mention(EVE, "let me in");
    assert.equal(await ephemeral(EVE, ts), "Access denied.");
    assert.deepEqual(inThread(ts), []);
    const later = mention(ADA, "after the stranger");
    await until(() => inThread(later.ts).includes("You said: after the stranger"), "later");
    const asked = model.requests.slice(before).map((request) => JSON.stringify(request.body));
    assert.ok(asked.every((body) => !body.includes("let me in")));
  });

  test("a comma command runs for an allowed user and is refused to a stranger", async () => {
    const before = model.requests.length;
    const mine = mention(ADA, ",help");
    const help = await until(
      () => inThread(mine.ts).find((text) => text.includes("Commands start with ','")),
      "the help",
    );
    assert.match(help, /,tape\.info/);
    const theirs = mention(EVE, ",help");
    assert.equal(await ephemeral(EVE, theirs.ts), "Access denied.");
    assert.deepEqual(inThread(theirs.ts), []);
    assert.equal(model.requests.length, before);
  });

  test("an approval button clicked (an interactive envelope) runs the held call once", async () => {
    const { ts } = mention(ADA, "write the effect");
    const buttons = await until(() => {
      const found = slack.buttonsIn("C0001").filter((b) => b.threadTs === ts);
      return found.length >= 3 && found;
    }, "the approval buttons");
    assert.deepEqual(buttons.map((b) => b.actionId), [
      "bub_approve",
      "bub_approve_always",
      "bub_deny",
    ]);
    assert.equal(existsSync(effect), false);
    const click = slack.socket.send("interactive", slack.clickPayload(ADA, buttons[0]!));
    await until(() => inThread(ts).find((text) => text.includes("Effect written.")), "answer");
    assert.equal(readFileSync(effect, "utf8"), "ran\n");
    assert.ok(click.ack !== null, "the click was acknowledged");
  });

  test("a redelivered envelope (same event id, retry_attempt 1) is answered once", async () => {
    const { event, ts } = mention(ADA, "only once");
    await until(() => inThread(ts).includes("You said: only once"), "the answer");
    slack.socket.send("events_api", event, { retryAttempt: 1 });
    const later = mention(ADA, "after the retry");
    await until(() => inThread(later.ts).includes("You said: after the retry"), "later");
    assert.deepEqual(inThread(ts), ["You said: only once"]);
    const asked = model.requests.map((request) => JSON.stringify(request.body));
    assert.equal(asked.filter((body) => body.includes("only once")).length, 1);
  });

  test("a disconnect message makes the gateway reconnect, and messages flow again", async () => {
    const accepted = slack.socket.accepted;
    slack.socket.disconnect();
    // The client waits its reconnect delay (5 s) before asking for a new URL.
    await slack.socket.waitAccepted(accepted + 1, 30_000);
    assert.equal(slack.callsOf("apps.connections.open").length, 2);
    const { ts } = mention(ADA, "after the reconnect");
    await until(() => inThread(ts).includes("You said: after the reconnect"), "the answer");
  });

  test("every envelope was acknowledged in time: the fake noticed none unacknowledged", () => {
    assert.ok(slack.socket.envelopes.length >= 9, String(slack.socket.envelopes.length));
    assert.deepEqual(slack.socket.unacked.map((e) => e.envelopeId), []);
    assert.deepEqual(
      slack.socket.envelopes.filter((e) => e.ack === null).map((e) => e.envelopeId),
      [],
    );
  });

  test("SIGTERM stops the gateway cleanly with exit code 0", async () => {
    process.kill(gateway.process.pid!, "SIGTERM");
    assert.equal(await gateway.exited(10_000), 0);
  });
});

describe("the fake Slack's socket mode", () => {
  test("an envelope left unacknowledged is noticed and redelivered with the next retry_attempt", async () => {
    await using slack = await FakeSlackServer.start();
    slack.socket.ackTimeoutMs = 200;
    const refused = await (await fetch(`${slack.apiBase}apps.connections.open`, {
      method: "POST",
      headers: { authorization: `Bearer ${slack.botToken}` },
    })).json();
    assert.deepEqual(refused, { ok: false, error: "invalid_auth" });
    const opened = await (await fetch(`${slack.apiBase}apps.connections.open`, {
      method: "POST",
      headers: { authorization: `Bearer ${slack.appToken}` },
    })).json() as { url: string };
    const received: Record<string, unknown>[] = [];
    const ws = new WebSocket(opened.url);
    ws.onmessage = (message) => received.push(JSON.parse(String(message.data)));
    try {
      await slack.socket.waitAccepted(1);
      const event = slack.messageEvent("UADA", "hi");
      const first = slack.socket.send("events_api", event);
      const end = Date.now() + 10_000;
      while (received.filter((m) => m.type === "events_api").length < 2 && Date.now() < end) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(received[0]!.type, "hello");
      const deliveries = received.filter((m) => m.type === "events_api");
      assert.deepEqual(deliveries.map((m) => m.retry_attempt).slice(0, 2), [0, 1]);
      assert.equal(slack.socket.unacked[0], first);
      // Acknowledging the redelivery ends the retries.
      ws.send(JSON.stringify({ envelope_id: deliveries[1]!.envelope_id, payload: {} }));
      const acked = Date.now() + 5_000;
      while (slack.socket.envelopes[1]!.ack === null && Date.now() < acked) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.deepEqual(slack.socket.envelopes[1]!.ack, {});
    } finally {
      ws.close();
    }
  });
});
