/**
 * Slack socket mode in a cluster: two Slack channels (in-process, as two gateway instances would
 * run them) on one PostgreSQL database. Only the elected one opens the socket (Slack would
 * otherwise spread the events over both connections); when it stops, the other connects and
 * receives the events.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ChatChannel } from "../../../src/channels/chat/chat_channel.ts";
import { WebhookServer } from "../../../src/channels/chat/webhook_server.ts";
import { FakeSlackServer } from "../../../src/testing/fake_slack.ts";
import { postgresUrl, withAdmin } from "../../tape/_postgres.ts";

const url = postgresUrl("Slack socket mode in a cluster");

if (url) {
  describe("Slack socket mode in a cluster", () => {
    test("one instance holds the socket; when it stops, the other connects and receives", async () => {
      const database = `bub_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
      await withAdmin(url, (sql) => sql.unsafe(`CREATE DATABASE "${database}"`));
      const store = new URL(url);
      store.pathname = `/${database}`;
      await using slack = await FakeSlackServer.start();
      const received: string[][] = [[], []];
      const channels = [0, 1].map((i) =>
        new ChatChannel({
          platform: "slack",
          handler: (message) => {
            received[i]!.push(JSON.stringify(message));
            return Promise.resolve();
          },
          credentials: {
            botToken: slack.botToken,
            appToken: slack.appToken,
            apiBase: slack.apiBase,
          },
          allowUsers: ["UADA"],
          webhooks: new WebhookServer({ port: 0 }),
          clusterUrl: store.href,
        })
      );
      try {
        await channels[0]!.start(new AbortController());
        await slack.socket.waitAccepted(1);
        await channels[1]!.start(new AbortController());
        // The follower tries to lead every second: give it two tries.
        await new Promise((resolve) => setTimeout(resolve, 2200));
        assert.equal(slack.socket.accepted, 1);
        assert.equal(slack.callsOf("apps.connections.open").length, 1);

        await channels[0]!.stop();
        await slack.socket.waitAccepted(2, 20_000);
        slack.socket.send(
          "events_api",
          slack.messageEvent("UADA", `<@${slack.botUserId}> over the new socket`),
        );
        const end = Date.now() + 15_000;
        while (!received[1]!.some((m) => m.includes("over the new socket"))) {
          if (Date.now() > end) throw new Error(`Not received: ${JSON.stringify(received)}`);
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        assert.deepEqual(received[0], []);
      } finally {
        for (const channel of channels) await channel.stop();
        await withAdmin(
          url,
          (sql) => sql.unsafe(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`),
        );
      }
    });
  });
}
