/**
 * The Slack channel (Chat SDK + Slack adapter) against the fake Slack: signed Events API
 * webhooks in through the shared webhook server, answers out through the fake Web API.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { ChatChannel } from "../../../src/channels/chat/chat_channel.ts";
import { WebhookServer } from "../../../src/channels/chat/webhook_server.ts";
import { ChannelMessage } from "../../../src/kernel/channel_message.ts";
import { FakeSlackServer } from "../../../src/testing/fake_slack.ts";

async function until<T>(probe: () => T | undefined, what: string, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("the slack channel against the fake Slack", () => {
  let slack: FakeSlackServer;
  let webhooks: WebhookServer;
  let channel: ChatChannel;
  const inbox: ChannelMessage[] = [];
  let url: string;

  before(async () => {
    slack = await FakeSlackServer.start();
    webhooks = new WebhookServer({ port: 0 });
    channel = new ChatChannel({
      platform: "slack",
      handler: (message) => {
        inbox.push(message as ChannelMessage);
        return Promise.resolve();
      },
      credentials: {
        botToken: slack.botToken,
        signingSecret: slack.signingSecret,
        apiBase: slack.apiBase,
      },
      allowUsers: ["UADA"],
      webhooks,
    });
    await channel.start(new AbortController());
    url = `${webhooks.url}/webhooks/slack`;
  });

  after(async () => {
    await channel?.stop();
    await slack?.close();
  });

  test("a mention from an allowed user reaches the handler with a per-thread session", async () => {
    const event = slack.messageEvent("UADA", `<@${slack.botUserId}> hello bub`);
    const response = await slack.deliver(url, event);
    assert.equal(response.status, 200);
    const message = await until(() => inbox.at(0), "the inbound message");
    const ts = (event.event as { ts: string }).ts;
    assert.equal(message.sessionId, `slack:C0001:${ts}`);
    assert.equal(JSON.parse(String(message.content)).message, "hello bub");
    await channel.send(
      new ChannelMessage({
        sessionId: message.sessionId,
        channel: "slack",
        chatId: message.chatId,
        content: "hi Ada",
      }),
    );
    const posted = slack.messagesIn("C0001");
    assert.equal(posted.at(-1)?.text, "hi Ada");
    assert.equal(posted.at(-1)?.threadTs, ts);
  });
});

describe("slack channel admission", () => {
  test("an open bot (no allowlist) refuses to start, naming the settings and `*`", async () => {
    const channel = new ChatChannel({
      platform: "slack",
      handler: () => Promise.resolve(),
      credentials: { botToken: "xoxb-1", signingSecret: "s" },
      webhooks: new WebhookServer({ port: 0 }),
    });
    await assert.rejects(channel.start(new AbortController()), (error: Error) => {
      assert.equal((error as { kind?: string }).kind, "config");
      assert.match(error.message, /Refusing to start the slack channel/);
      assert.match(error.message, /BUB_SLACK_ALLOW_USERS="\*"/);
      return true;
    });
  });

  test("socket mode with a wrong app token fails to start with a config error naming the setting", async () => {
    await using slack = await FakeSlackServer.start();
    const webhooks = new WebhookServer({ port: 0 });
    const channel = new ChatChannel({
      platform: "slack",
      handler: () => Promise.resolve(),
      credentials: { botToken: slack.botToken, appToken: "xapp-wrong", apiBase: slack.apiBase },
      allowUsers: ["UADA"],
      webhooks,
    });
    await assert.rejects(channel.start(new AbortController()), (error: Error) => {
      assert.equal((error as { kind?: string }).kind, "config");
      assert.match(error.message, /socket mode \(check BUB_SLACK_APP_TOKEN/);
      assert.match(error.message, /invalid_auth/);
      assert.doesNotMatch(error.message, /xapp-wrong/);
      return true;
    });
    assert.equal(slack.callsOf("apps.connections.open").length, 1);
    assert.equal(slack.socket.accepted, 0);
    // Socket mode registers no webhook route: the shared server never listened.
    assert.throws(() => webhooks.url, /not listening/);
  });

  test('with allow_users "*" anyone talks but a comma command from an unlisted user is refused', async () => {
    await using slack = await FakeSlackServer.start();
    const webhooks = new WebhookServer({ port: 0 });
    const inbox: ChannelMessage[] = [];
    const channel = new ChatChannel({
      platform: "slack",
      handler: (message) => {
        inbox.push(message as ChannelMessage);
        return Promise.resolve();
      },
      credentials: {
        botToken: slack.botToken,
        signingSecret: slack.signingSecret,
        apiBase: slack.apiBase,
      },
      allowUsers: ["*"],
      webhooks,
    });
    await channel.start(new AbortController());
    try {
      const url = `${webhooks.url}/webhooks/slack`;
      await slack.deliver(url, slack.messageEvent("UANY", `<@${slack.botUserId}> ,help`));
      // Refused in a message only UANY sees (chat.postEphemeral), nothing posted to the channel.
      const [refusal] = await slack.log.waitFor("chat.postEphemeral");
      assert.equal(refusal!.params.user, "UANY");
      assert.equal(
        refusal!.params.markdown_text ?? refusal!.params.text,
        "Comma commands are only accepted from users listed in BUB_SLACK_ALLOW_USERS.",
      );
      assert.deepEqual(slack.messagesIn("C0001"), []);
      await slack.deliver(url, slack.messageEvent("UANY", `<@${slack.botUserId}> hi`));
      const message = await until(() => inbox.at(0), "the plain message");
      assert.equal(message.kind, "normal");
      assert.equal(inbox.length, 1);
    } finally {
      await channel.stop();
    }
  });
});

describe("slack channel while the handler is busy", () => {
  test("a message arriving while the previous one is still being handed over is not dropped", async () => {
    await using slack = await FakeSlackServer.start();
    const webhooks = new WebhookServer({ port: 0 });
    const inbox: string[] = [];
    let release!: () => void;
    const secondArrived = new Promise<void>((resolve) => (release = resolve));
    const channel = new ChatChannel({
      platform: "slack",
      // The first hand-off waits until the second message reached the handler: the SDK must
      // not hold the thread for it (Bub's channel manager queues per session itself).
      handler: async (message) => {
        inbox.push(JSON.parse(String((message as ChannelMessage).content)).message);
        if (inbox.length === 1) await secondArrived;
        else release();
      },
      credentials: {
        botToken: slack.botToken,
        signingSecret: slack.signingSecret,
        apiBase: slack.apiBase,
      },
      allowUsers: ["UADA"],
      webhooks,
    });
    await channel.start(new AbortController());
    try {
      const url = `${webhooks.url}/webhooks/slack`;
      const ts = slack.nextTs();
      await slack.deliver(url, slack.messageEvent("UADA", `<@${slack.botUserId}> one`, { ts }));
      await until(() => inbox.at(0), "the first message");
      const next = slack.messageEvent("UADA", `<@${slack.botUserId}> two`, { threadTs: ts });
      await slack.deliver(url, next);
      await until(() => inbox.at(1), "the second message");
      assert.deepEqual(inbox, ["one", "two"]);
    } finally {
      release();
      await channel.stop();
    }
  });
});
