/**
 * Approvals as Slack buttons through a real `bub gateway`: a mention whose turn calls `bash`
 * under an `approvals:` rule gets the answer with `,approve <id>` and an Approve / Always / Deny
 * card; a click by a user who is not on `allow_users` is refused and runs nothing; the asking
 * user's click on Approve runs the command once and the turn's answer arrives in the thread.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
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

describe("approvals as Slack buttons", () => {
  let dirs: TempDirs;
  let slack: FakeSlackServer;
  let model: MockLlmServer;
  let gateway: Child;
  let webhook: string;
  let effect: string;
  const OWNER = "UADA";
  const OTHER = "UBOB";

  before(async () => {
    dirs = tempDirs("bub-gateway-slack-approvals-");
    effect = join(dirs.workspace, "effect.txt");
    slack = await FakeSlackServer.start();
    model = await MockLlmServer.start({
      script: (request: MockRequest): MockReply => {
        const messages = (request.body as { messages: { role: string }[] }).messages;
        if (messages.at(-1)?.role === "tool") return mockReply.text("Effect written.");
        return mockReply.toolCall("bash", { command: `echo ran >> ${effect}` });
      },
    });
    gateway = startChild(runtimeCommand(BIN, ["gateway", "--enable-channel", "slack"]), {
      cwd: dirs.workspace,
      env: childEnv(dirs, {
        BUB_MODEL: "custom:x",
        BUB_API_BASE: model.url,
        BUB_API_KEY: "sk-gateway",
        BUB_SLACK_BOT_TOKEN: slack.botToken,
        BUB_SLACK_SIGNING_SECRET: slack.signingSecret,
        BUB_SLACK_API_BASE: slack.apiBase,
        // UBOB may talk (allow_channels) but is not listed: no comma commands, no buttons.
        BUB_SLACK_ALLOW_USERS: OWNER,
        BUB_SLACK_ALLOW_CHANNELS: "C0001",
        BUB_WEBHOOK_PORT: "0",
        BUB_DEBOUNCE_SECONDS: "0.05",
        BUB_MAX_WAIT_SECONDS: "0.5",
        BUB_APPROVALS: JSON.stringify([
          { tool: "bash", match: "effect\\.txt", reason: "writes the effect file" },
        ]),
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

  async function until<T>(probe: () => T | undefined, what: string): Promise<T> {
    const end = Date.now() + 30_000;
    for (;;) {
      const value = probe();
      if (value !== undefined) return value;
      if (Date.now() > end) {
        throw new Error(`Timed out waiting for ${what}: ${JSON.stringify(slack.log.calls)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  test("a held call gets buttons; a stranger's click is refused, the owner's Approve runs it once", async () => {
    const event = slack.messageEvent(OWNER, `<@${slack.botUserId}> write the effect`);
    const threadTs = (event.event as { ts: string }).ts;
    await slack.deliver(webhook, event);
    const buttons = await until(() => {
      const found = slack.buttonsIn("C0001").filter((b) => b.threadTs === threadTs);
      return found.length >= 3 ? found : undefined;
    }, "the approval buttons");
    assert.deepEqual(buttons.map((b) => b.actionId), [
      "bub_approve",
      "bub_approve_always",
      "bub_deny",
    ]);
    const approve = buttons[0]!;
    const id = /^,approve ([a-z2-7]{10})$/.exec(approve.value)?.[1];
    assert.ok(id, approve.value);
    const texts = () =>
      slack.messagesIn("C0001").filter((m) => m.threadTs === threadTs).map((m) => m.text);
    assert.ok(texts().some((text) => text.includes(`,approve ${id}`)), JSON.stringify(texts()));
    assert.equal(existsSync(effect), false);

    const forged = await slack.click(webhook, OWNER, approve, { secret: "wrong" });
    assert.equal(forged.status, 401);
    assert.equal((await slack.click(webhook, OTHER, approve)).status, 200);
    // The refusal is a message only the stranger sees.
    const [refusal] = await slack.log.waitFor(
      "chat.postEphemeral",
      1,
      (call) => call.params.user === OTHER && call.params.thread_ts === threadTs,
    );
    assert.match(
      String(refusal!.params.markdown_text ?? refusal!.params.text),
      /^Comma commands are only accepted/,
    );
    assert.ok(!texts().some((text) => text.startsWith("Comma commands are only accepted")));
    assert.equal(existsSync(effect), false);

    assert.equal((await slack.click(webhook, OWNER, approve)).status, 200);
    await until(() => texts().find((text) => text.includes("Effect written.")), "the answer");
    assert.equal(readFileSync(effect, "utf8"), "ran\n");
    assert.equal(model.requests.length, 2);
  });
});
