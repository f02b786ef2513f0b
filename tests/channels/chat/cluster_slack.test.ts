/**
 * Webhooks in cluster mode: two real `bub gateway` instances on one PostgreSQL tape store (a
 * database of its own) serve Slack. Either instance may receive a signed event; the message goes
 * through the shared inbox, deduplicated by Slack's message id, and exactly one instance answers:
 * the same event delivered to both is answered once (a comma command too), 20 events spread
 * over both get 20 answers, none twice, and a thread followed after a mention on one instance
 * has its replies without a mention answered by the other (subscriptions in the database).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { FakeSlackServer } from "../../../src/testing/fake_slack.ts";
import { MockLlmServer } from "../../../src/testing/mock_llm_server.ts";
import { postgresUrl, withAdmin } from "../../tape/_postgres.ts";
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

const url = postgresUrl("chat webhooks in cluster mode");

if (url) {
  describe("Slack webhooks through the cluster inbox", () => {
    const database = `bub_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
    let dirs: TempDirs;
    let slack: FakeSlackServer;
    let model: MockLlmServer;
    const gateways: Child[] = [];
    const webhooks: string[] = [];
    const ADA = "UADA";

    before(async () => {
      await withAdmin(url, (sql) => sql.unsafe(`CREATE DATABASE "${database}"`));
      const store = new URL(url);
      store.pathname = `/${database}`;
      dirs = tempDirs("bub-cluster-slack-");
      slack = await FakeSlackServer.start();
      model = await MockLlmServer.start({ script: echoModel });
      for (const instance of ["a", "b"]) {
        const gateway = startChild(runtimeCommand(BIN, ["gateway", "--enable-channel", "slack"]), {
          // The same workspace path: session tapes are named after it.
          cwd: dirs.workspace,
          env: childEnv(dirs, {
            BUB_MODEL: "custom:x",
            BUB_API_BASE: model.url,
            BUB_API_KEY: `sk-${instance}`,
            BUB_TAPE_STORE: store.href,
            BUB_CLUSTER_POLL_SECONDS: "0.1",
            BUB_SLACK_BOT_TOKEN: slack.botToken,
            BUB_SLACK_SIGNING_SECRET: slack.signingSecret,
            BUB_SLACK_API_BASE: slack.apiBase,
            BUB_SLACK_ALLOW_USERS: ADA,
            BUB_WEBHOOK_PORT: "0",
            BUB_STREAM_OUTPUT: "true",
            BUB_DEBOUNCE_SECONDS: "0.05",
            BUB_MAX_WAIT_SECONDS: "0.5",
          }),
        });
        gateways.push(gateway);
        await gateway.waitFor(/webhooks on http:\/\/127\.0\.0\.1:\d+/, { timeoutMs: 60_000 });
        await gateway.waitFor(/cluster instance/, { timeoutMs: 60_000 });
        const base = /webhooks on (http:\/\/127\.0\.0\.1:\d+)/.exec(gateway.stdout)![1];
        webhooks.push(`${base}/webhooks/slack`);
      }
    });

    after(async () => {
      for (const gateway of gateways) {
        if (gateway.process.exitCode === null) gateway.process.kill("SIGTERM");
      }
      for (const gateway of gateways) await gateway.exited(10_000).catch(() => gateway.kill());
      await model?.close();
      await slack?.close();
      dirs?.remove();
      await withAdmin(url, (sql) => sql.unsafe(`DROP DATABASE IF EXISTS "${database}"`));
    });

    /** The bot's messages in the thread of `ts`. */
    const inThread = (ts: string) =>
      slack.messagesIn("C0001").filter((m) => m.threadTs === ts).map((m) => m.text);

    async function until(check: () => boolean, what: string): Promise<void> {
      const end = Date.now() + 60_000;
      while (!check()) {
        if (Date.now() > end) {
          throw new Error(
            `Timed out waiting for ${what}\n${gateways.map((g) => g.stderr).join("\n---\n")}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
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
      const asked = model.requests.map((request) => JSON.stringify(request.body));
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
      const asked = model.requests.map((request) => JSON.stringify(request.body));
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
      const asked = model.requests.map((request) => JSON.stringify(request.body));
      for (let i = 0; i < 20; i++) {
        const pattern = new RegExp(`event ${i}(?!\\d)`);
        assert.equal(asked.filter((body) => pattern.test(body)).length, 1, `event ${i}`);
      }
    });
  });
}
