/**
 * `bub gateway --enable-channel github` as a real subprocess: the fake GitHub delivers signed
 * `issue_comment` webhooks to the gateway's webhook server and receives the answers as issue
 * comments through its fake REST API (`BUB_GITHUB_API_BASE`); the mock model answers.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { FakeGitHubServer } from "../../../src/testing/fake_github.ts";
import { type Gateway, startGateway } from "./_gateway.ts";

describe("bub gateway serving GitHub issue comments through the Chat SDK", () => {
  let github: FakeGitHubServer;
  let gateway: Gateway;
  let webhook: string;
  const ada = { id: 501, login: "ada" };
  const eve = { id: 666, login: "eve" };
  let issue = 1;

  before(async () => {
    github = await FakeGitHubServer.start();
    gateway = await startGateway({
      channel: "github",
      env: {
        BUB_GITHUB_TOKEN: github.token,
        BUB_GITHUB_WEBHOOK_SECRET: github.webhookSecret,
        BUB_GITHUB_API_BASE: github.apiBase,
        BUB_GITHUB_USER_NAME: github.bot.login,
        BUB_GITHUB_ALLOW_USERS: ada.login,
      },
      context: () => JSON.stringify(github.log.calls),
    });
    webhook = gateway.webhook;
  });

  after(async () => {
    await gateway?.[Symbol.asyncDispose]();
    await github?.close();
  });

  async function comments(number: number, needle: string): Promise<string[]> {
    const posted = () => github.commentsOn("acme/app", number);
    return await gateway.waitFor(
      () => posted().some((text) => text.includes(needle)) && posted(),
      `"${needle}" on #${number}`,
    );
  }

  test("a comment mentioning the bot is answered with a comment on the same issue", async () => {
    const number = issue++;
    const event = github.commentEvent(ada, "@bub hello there", { number });
    assert.equal((await github.deliver(webhook, event)).status, 200);
    assert.deepEqual(await comments(number, "You said: hello there"), ["You said: hello there"]);
  });

  test("a forged or missing signature gets 401 and runs nothing", async () => {
    const before = gateway.model.requests.length;
    const number = issue++;
    const forged = github.commentEvent(ada, "@bub forged", { number });
    assert.equal((await github.deliver(webhook, forged, { secret: "wrong" })).status, 401);
    assert.equal((await github.deliver(webhook, forged, { unsigned: true })).status, 401);
    const later = github.commentEvent(ada, "@bub after the forgery", { number });
    await github.deliver(webhook, later);
    assert.deepEqual(await comments(number, "after the forgery"), [
      "You said: after the forgery",
    ]);
    const asked = gateway.model.requests.slice(before).map((request) =>
      JSON.stringify(request.body)
    );
    assert.ok(asked.every((body) => !body.includes("forged")));
  });

  test("a stranger gets no answer (no spam on public issues) and the model never sees them", async () => {
    const before = gateway.model.requests.length;
    const number = issue++;
    await github.deliver(webhook, github.commentEvent(eve, "@bub let me in", { number }));
    await github.deliver(webhook, github.commentEvent(eve, "@bub ,help", { number }));
    const later = github.commentEvent(ada, "@bub after the stranger", { number });
    await github.deliver(webhook, later);
    assert.deepEqual(await comments(number, "after the stranger"), [
      "You said: after the stranger",
    ]);
    const asked = gateway.model.requests.slice(before).map((request) =>
      JSON.stringify(request.body)
    );
    assert.ok(asked.every((body) => !body.includes("let me in")));
  });

  test("a comma command from an allowed user runs and answers on the issue", async () => {
    const before = gateway.model.requests.length;
    const number = issue++;
    await github.deliver(webhook, github.commentEvent(ada, "@bub ,help", { number }));
    const [help] = await comments(number, "Commands start with ','");
    assert.match(help!, /,tape\.info/);
    assert.equal(gateway.model.requests.length, before);
  });

  test("a redelivered webhook (same delivery, same comment) is answered once", async () => {
    const number = issue++;
    const event = github.commentEvent(ada, "@bub only once", { number });
    const deliveryId = crypto.randomUUID();
    await github.deliver(webhook, event, { deliveryId });
    await comments(number, "You said: only once");
    await github.deliver(webhook, event, { deliveryId });
    const other = issue++;
    await github.deliver(
      webhook,
      github.commentEvent(ada, "@bub after the redelivery", {
        number: other,
      }),
    );
    await comments(other, "after the redelivery");
    assert.deepEqual(github.commentsOn("acme/app", number), ["You said: only once"]);
    const lastUser = gateway.model.requests.map((request) => {
      const messages = (request.body as { messages: { role: string; content: unknown }[] })
        .messages;
      return JSON.stringify(messages.findLast((message) => message.role === "user")?.content);
    });
    assert.equal(lastUser.filter((text) => text.includes("only once")).length, 1);
  });

  test("SIGTERM stops the gateway cleanly with exit code 0", async () => {
    process.kill(gateway.process.process.pid!, "SIGTERM");
    assert.equal(await gateway.process.exited(10_000), 0);
  });
});
