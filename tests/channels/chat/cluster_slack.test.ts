/**
 * Webhooks in cluster mode: two real `bub gateway` instances on one PostgreSQL tape store (a
 * database of its own) serve Slack. Either instance may receive a signed event; the message goes
 * through the shared inbox, deduplicated by Slack's message id, and exactly one instance answers:
 * the same event delivered to both is answered once (a comma command too), and 20 events spread
 * over both get 20 answers, none twice, and a thread followed after a mention on one instance
 * has its replies without a mention answered by the other (subscriptions in the database). A mention with an image goes through the shared inbox
 * (which stores the file's URL, not its bytes), and the instance that runs the turn fetches the
 * file with the bot token: the mock model receives the image's bytes.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { FakeSlackServer } from "../../../src/testing/fake_slack.ts";
import { base64, PNG_BASE64 } from "../../agent/_media_files.ts";
import { postgresUrl } from "../../tape/_postgres.ts";
import { userParts } from "./_echo_model.ts";
import { type Gateway, startGateway } from "./_gateway.ts";

const url = postgresUrl("chat webhooks in cluster mode");

if (url) {
  describe("Slack webhooks through the cluster inbox", () => {
    let slack: FakeSlackServer;
    let cluster: Gateway;
    let webhooks: readonly string[];
    const ADA = "UADA";

    before(async () => {
      slack = await FakeSlackServer.start();
      cluster = await startGateway({
        channel: "slack",
        cluster: { url },
        env: {
          BUB_SLACK_BOT_TOKEN: slack.botToken,
          BUB_SLACK_SIGNING_SECRET: slack.signingSecret,
          BUB_SLACK_API_BASE: slack.apiBase,
          BUB_SLACK_ALLOW_USERS: ADA,
          BUB_STREAM_OUTPUT: "true",
        },
      });
      webhooks = cluster.webhooks;
    });

    after(async () => {
      await cluster?.[Symbol.asyncDispose]();
      await slack?.close();
    });

    /** The bot's messages in the thread of `ts`. */
    const inThread = (ts: string) =>
      slack.messagesIn("C0001").filter((m) => m.threadTs === ts).map((m) => m.text);

    async function until(check: () => boolean, what: string): Promise<void> {
      await cluster.waitFor(check, what, 60_000);
    }

    function mention(text: string): { event: Record<string, unknown>; ts: string } {
      const event = slack.messageEvent(ADA, `<@${slack.botUserId}> ${text}`);
      return { event, ts: (event.event as { ts: string }).ts };
    }

    test("the same signed event delivered to both instances is answered once", async () => {
      const { event, ts } = mention("to both");
      const statuses = await Promise.all(
        webhooks.map(async (webhook) => (await slack.deliver(webhook, event)).status),
      );
      assert.deepEqual(statuses, [200, 200]);
      await until(() => inThread(ts).includes("You said: to both"), "the answer");
      // A later message of the thread's session runs after any duplicate would have.
      const later = mention("after both");
      await slack.deliver(webhooks[1]!, later.event);
      await until(() => inThread(later.ts).includes("You said: after both"), "the later answer");
      assert.deepEqual(inThread(ts), ["You said: to both"]);
      // The instance that runs the turn shows typing, whichever one received the event.
      const typing = slack.callsOf("assistant.threads.setStatus");
      assert.ok(typing.some((call) => call.params.thread_ts === ts), JSON.stringify(typing));
      const asked = cluster.model.requests.map((request) => JSON.stringify(request.body));
      assert.equal(asked.filter((body) => body.includes("to both")).length, 1);
    });

    test("a comma command delivered to both instances runs once", async () => {
      const { event, ts } = mention(",help");
      await Promise.all(webhooks.map((webhook) => slack.deliver(webhook, event)));
      await until(() => inThread(ts).some((text) => text.includes(",tape.info")), "the help");
      const later = mention("after the command");
      await slack.deliver(webhooks[0]!, later.event);
      await until(() => inThread(later.ts).includes("You said: after the command"), "later");
      assert.equal(inThread(ts).length, 1, JSON.stringify(inThread(ts)));
    });

    test("a thread reply without a mention, delivered to the other instance, is answered once", async () => {
      const { event, ts } = mention("start a thread on a");
      await slack.deliver(webhooks[0]!, event);
      await until(() => inThread(ts).includes("You said: start a thread on a"), "the answer");
      const reply = slack.messageEvent(ADA, "a reply for b", { threadTs: ts });
      assert.equal((await slack.deliver(webhooks[1]!, reply)).status, 200);
      await until(() => inThread(ts).includes("You said: a reply for b"), "the reply's answer");
      const later = mention("after the reply");
      await slack.deliver(webhooks[1]!, later.event);
      await until(() => inThread(later.ts).includes("You said: after the reply"), "later");
      assert.deepEqual(inThread(ts), ["You said: start a thread on a", "You said: a reply for b"]);
      const asked = cluster.model.requests.map((request) => JSON.stringify(request.body));
      assert.equal(asked.filter((body) => body.includes("a reply for b")).length, 1);
    });

    test("20 events spread over both instances get 20 answers, none twice", async () => {
      const events = Array.from({ length: 20 }, (_, i) => mention(`event ${i}`));
      await Promise.all(
        events.map(({ event }, i) => slack.deliver(webhooks[i % 2]!, event)),
      );
      await until(
        () => events.every(({ ts }, i) => inThread(ts).includes(`You said: event ${i}`)),
        "20 answers",
      );
      const typing = () => slack.callsOf("assistant.threads.setStatus");
      for (const [i, { ts }] of events.entries()) {
        assert.deepEqual(inThread(ts), [`You said: event ${i}`]);
        assert.ok(typing().some((call) => call.params.thread_ts === ts), `typing ${i}`);
      }
      const asked = cluster.model.requests.map((request) => JSON.stringify(request.body));
      for (let i = 0; i < 20; i++) {
        const pattern = new RegExp(`event ${i}(?!\\d)`);
        assert.equal(asked.filter((body) => pattern.test(body)).length, 1, `event ${i}`);
      }
    });

    test("an image sent to one instance reaches the model with its bytes, whichever instance answers", async () => {
      const skip = cluster.model.requests.length;
      const png = Uint8Array.from(atob(PNG_BASE64), (c) => c.charCodeAt(0));
      const files = [slack.addFile("cat.png", "image/png", png)];
      const event = slack.messageEvent(ADA, `<@${slack.botUserId}> see this`, { files });
      assert.equal((await slack.deliver(webhooks[0]!, event)).status, 200);
      const parts = userParts(await cluster.modelRequest("see this", skip, 60_000));
      assert.ok(Array.isArray(parts), JSON.stringify(parts));
      assert.deepEqual(
        (parts as Record<string, unknown>[]).find((part) => part.type === "image_url"),
        { type: "image_url", image_url: { url: `data:image/png;base64,${base64(png)}` } },
      );
      for (const call of slack.callsOf("files-pri")) {
        assert.equal(call.authorization, `Bearer ${slack.botToken}`);
      }
    });
  });
}
