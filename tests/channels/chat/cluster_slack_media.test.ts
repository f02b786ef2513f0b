/**
 * Slack files in cluster mode: two real `bub gateway` instances on one PostgreSQL tape store; a
 * mention with an image goes through the shared inbox (which stores the file's URL, not its
 * bytes), and the instance that runs the turn fetches the file with the bot token: the mock model
 * receives the image's bytes.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { FakeSlackServer } from "../../../src/testing/fake_slack.ts";
import { mockReply } from "../../../src/testing/_mock_reply.ts";
import { MockLlmServer } from "../../../src/testing/mock_llm_server.ts";
import { base64, PNG_BASE64 } from "../../agent/_media_files.ts";
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

const url = postgresUrl("chat media in cluster mode");

if (url) {
  describe("Slack files through the cluster inbox", () => {
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
      dirs = tempDirs("bub-cluster-slack-media-");
      slack = await FakeSlackServer.start();
      model = await MockLlmServer.start({ script: () => mockReply.text("Seen.") });
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

    test("an image sent to one instance reaches the model with its bytes, whichever instance answers", async () => {
      const png = Uint8Array.from(atob(PNG_BASE64), (c) => c.charCodeAt(0));
      const files = [slack.addFile("cat.png", "image/png", png)];
      const event = slack.messageEvent(ADA, `<@${slack.botUserId}> see this`, { files });
      assert.equal((await slack.deliver(webhooks[0]!, event)).status, 200);
      await until(() => model.requests.length >= 1, "a model request");
      const messages =
        (model.requests[0]!.body as { messages: { role: string; content: unknown }[] })
          .messages;
      const parts = messages.findLast((message) => message.role === "user")!.content;
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
