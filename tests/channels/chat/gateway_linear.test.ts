/**
 * `bub gateway --enable-channel linear` as a real subprocess: the fake Linear delivers signed
 * `Comment` webhooks to the gateway's webhook server and receives the answers as reply comments
 * through its fake GraphQL API (`BUB_LINEAR_API_BASE`), streamed as a comment edited to the
 * answer; the mock model answers, or calls `bash` under an `approvals:` rule, which Linear
 * (no buttons) approves by a `,approve <id>` comment.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { FakeLinearServer } from "../../../src/testing/fake_linear.ts";
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

describe("bub gateway serving Linear issue comments through the Chat SDK", () => {
  let dirs: TempDirs;
  let linear: FakeLinearServer;
  let model: MockLlmServer;
  let gateway: Child;
  let webhook: string;
  let effect: string;
  const ada = { id: "user-ada", name: "ada" };
  const eve = { id: "user-eve", name: "eve" };
  let issues = 1;

  before(async () => {
    dirs = tempDirs("bub-gateway-linear-");
    effect = join(dirs.workspace, "effect.txt");
    linear = await FakeLinearServer.start();
    model = await MockLlmServer.start({
      script: (request: MockRequest): MockReply => {
        const messages = (request.body as { messages: { role: string; content: unknown }[] })
          .messages;
        if (messages.at(-1)?.role === "tool") return mockReply.text("Effect written.");
        if (JSON.stringify(messages.at(-1)?.content).includes("write the effect")) {
          return mockReply.toolCall("bash", { command: `echo ran >> ${effect}` });
        }
        return echoModel(request);
      },
    });
    gateway = startChild(runtimeCommand(BIN, ["gateway", "--enable-channel", "linear"]), {
      cwd: dirs.workspace,
      env: childEnv(dirs, {
        BUB_MODEL: "custom:x",
        BUB_API_BASE: model.url,
        BUB_API_KEY: "sk-gateway",
        BUB_LINEAR_API_KEY: linear.apiKey,
        BUB_LINEAR_WEBHOOK_SECRET: linear.webhookSecret,
        BUB_LINEAR_API_BASE: linear.apiBase,
        BUB_LINEAR_USER_NAME: linear.bot.name,
        BUB_LINEAR_ALLOW_USERS: ada.name,
        BUB_WEBHOOK_PORT: "0",
        BUB_STREAM_OUTPUT: "true",
        BUB_DEBOUNCE_SECONDS: "0.05",
        BUB_MAX_WAIT_SECONDS: "0.5",
        BUB_APPROVALS: JSON.stringify([
          { tool: "bash", match: "effect\\.txt", reason: "writes the effect file" },
        ]),
      }),
    });
    await gateway.waitFor(/webhooks on http:\/\/127\.0\.0\.1:\d+/, { timeoutMs: 60_000 });
    const base = /webhooks on (http:\/\/127\.0\.0\.1:\d+)/.exec(gateway.stdout)![1];
    webhook = `${base}/webhooks/linear`;
  });

  after(async () => {
    if (gateway && gateway.process.exitCode === null) gateway.process.kill("SIGTERM");
    await gateway?.exited(10_000).catch(() => gateway.kill());
    await model?.close();
    await linear?.close();
    dirs?.remove();
  });

  /** The bot's comments on `issue` once one of them includes `needle`. */
  async function comments(issue: string, needle: string): Promise<string[]> {
    const end = Date.now() + 30_000;
    while (!linear.commentsOn(issue).some((text) => text.includes(needle))) {
      if (Date.now() > end) {
        throw new Error(`No "${needle}" on ${issue}: ${JSON.stringify(linear.log.calls)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return linear.commentsOn(issue);
  }

  function userTexts(): string[] {
    return model.requests.map((request) => {
      const messages = (request.body as { messages: { role: string; content: unknown }[] })
        .messages;
      return JSON.stringify(messages.findLast((message) => message.role === "user")?.content);
    });
  }

  test("a comment mentioning the bot gets a reply comment, streamed as edits, despite a rate limit", async () => {
    const issue = `issue-${issues++}`;
    linear.rateLimit("createComment");
    const event = linear.commentEvent(ada, "@bub hello there", { issueId: issue });
    assert.equal((await linear.deliver(webhook, event)).status, 200);
    assert.deepEqual(await comments(issue, "You said: hello there"), ["You said: hello there"]);
    const creates = linear.callsOf("createComment");
    assert.equal(creates.filter((call) => call.params.rateLimited).length, 1);
    const created = creates.filter((call) => !call.params.rateLimited);
    assert.equal(created.length, 1);
    const input = created[0]!.params.input as { parentId?: string; body?: string };
    // A reply under the mentioning comment, posted first and then edited to the answer.
    assert.equal(input.parentId, (event.data as { id: string }).id);
    assert.ok(linear.callsOf("updateComment").length >= 1);
  });

  test("a forged, missing or stale signature gets 401 and runs nothing", async () => {
    const before = model.requests.length;
    const issue = `issue-${issues++}`;
    const forged = linear.commentEvent(ada, "@bub forged", { issueId: issue });
    assert.equal((await linear.deliver(webhook, forged, { secret: "wrong" })).status, 401);
    assert.equal((await linear.deliver(webhook, forged, { unsigned: true })).status, 401);
    const stale = { timestamp: Date.now() - 5 * 60_000 };
    assert.equal((await linear.deliver(webhook, forged, stale)).status, 401);
    const later = linear.commentEvent(ada, "@bub after the forgery", { issueId: issue });
    await linear.deliver(webhook, later);
    assert.deepEqual(await comments(issue, "after the forgery"), ["You said: after the forgery"]);
    assert.ok(userTexts().slice(before).every((text) => !text.includes("forged")));
  });

  test("a stranger gets no answer (a shared comment thread: no spam) and the model never sees them", async () => {
    const before = model.requests.length;
    const issue = `issue-${issues++}`;
    await linear.deliver(webhook, linear.commentEvent(eve, "@bub let me in", { issueId: issue }));
    await linear.deliver(webhook, linear.commentEvent(eve, "@bub ,help", { issueId: issue }));
    const later = linear.commentEvent(ada, "@bub after the stranger", { issueId: issue });
    await linear.deliver(webhook, later);
    assert.deepEqual(await comments(issue, "after the stranger"), [
      "You said: after the stranger",
    ]);
    assert.ok(userTexts().slice(before).every((text) => !text.includes("let me in")));
  });

  test("a comma command from an allowed user runs and answers on the issue", async () => {
    const before = model.requests.length;
    const issue = `issue-${issues++}`;
    await linear.deliver(webhook, linear.commentEvent(ada, "@bub ,help", { issueId: issue }));
    const [help] = await comments(issue, "Commands start with ','");
    assert.match(help!, /,tape\.info/);
    assert.equal(model.requests.length, before);
  });

  test("a redelivered webhook (same comment) is answered once", async () => {
    const issue = `issue-${issues++}`;
    const event = linear.commentEvent(ada, "@bub only once", { issueId: issue });
    await linear.deliver(webhook, event);
    await comments(issue, "You said: only once");
    await linear.deliver(webhook, event);
    const other = `issue-${issues++}`;
    await linear.deliver(
      webhook,
      linear.commentEvent(ada, "@bub after the redelivery", { issueId: other }),
    );
    await comments(other, "after the redelivery");
    assert.deepEqual(linear.commentsOn(issue), ["You said: only once"]);
    assert.equal(userTexts().filter((text) => text.includes("only once")).length, 1);
  });

  test("a held call is approved by a ',approve <id>' comment of a listed user, not a stranger's", async () => {
    const issue = `issue-${issues++}`;
    const ask = linear.commentEvent(ada, "@bub write the effect", { issueId: issue });
    const root = (ask.data as { id: string }).id;
    await linear.deliver(webhook, ask);
    const [asking] = await comments(issue, ",approve ");
    const id = /,approve ([a-z2-7]{10})/.exec(asking!)?.[1];
    assert.ok(id, asking);
    assert.equal(existsSync(effect), false);

    const approve = `@bub ,approve ${id}`;
    const reply = { issueId: issue, parentId: root };
    await linear.deliver(webhook, linear.commentEvent(eve, approve, reply));
    const other = `issue-${issues++}`;
    await linear.deliver(webhook, linear.commentEvent(ada, "@bub after eve", { issueId: other }));
    await comments(other, "after eve");
    assert.equal(existsSync(effect), false);
    await linear.deliver(webhook, linear.commentEvent(ada, approve, reply));
    await comments(issue, "Effect written.");
    assert.equal(readFileSync(effect, "utf8"), "ran\n");
  });

  test("SIGTERM stops the gateway cleanly with exit code 0", async () => {
    process.kill(gateway.process.pid!, "SIGTERM");
    assert.equal(await gateway.exited(10_000), 0);
  });
});
