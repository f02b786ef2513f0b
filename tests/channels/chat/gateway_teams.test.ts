/**
 * `bub gateway --enable-channel teams` as one real subprocess for the whole file: the fake Teams
 * (Bot Framework) signs activities with its own RS256 key and posts them to the gateway's
 * webhook server; the gateway finds the key through the fake's OpenID metadata
 * (`BUB_TEAMS_API_BASE`), gets its bot token from the fake's token endpoint and answers through
 * the fake's Bot Connector (the activities' `serviceUrl`).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { type FakeTeamsActivity, FakeTeamsServer } from "../../../src/testing/fake_teams.ts";
import { echoOrEffectModel } from "./_echo_model.ts";
import { type Gateway, startGateway } from "./_gateway.ts";
import { teamsEnv } from "./_platform_env.ts";

describe("bub gateway serving Microsoft Teams through the Chat SDK", () => {
  let teams: FakeTeamsServer;
  let gateway: Gateway;
  let webhook: string;
  let effect: string;
  const ADA = { id: "29:ada", name: "Ada", aadObjectId: "aad-ada" };
  const BOB = { id: "29:bob", name: "Bob", aadObjectId: "aad-bob" };
  const EVE = { id: "29:eve", name: "Eve", aadObjectId: "aad-eve" };
  const SENT = "POST /teams/v3/conversations/{conversation}/activities";

  before(async () => {
    teams = await FakeTeamsServer.start();
    gateway = await startGateway({
      channel: "teams",
      model: echoOrEffectModel(() => effect),
      env: {
        ...teamsEnv(teams),
        // Only Ada is listed: comma commands and approval buttons are hers.
        BUB_TEAMS_ALLOW_USERS: ADA.id,
        BUB_STREAM_OUTPUT: "true",
        BUB_APPROVALS: JSON.stringify([
          { tool: "bash", match: "effect\\.txt", reason: "writes the effect file" },
        ]),
      },
      context: () => JSON.stringify(teams.log.calls),
    });
    effect = join(gateway.dirs.workspace, "effect.txt");
    webhook = gateway.webhook;
  });

  after(async () => {
    await gateway?.[Symbol.asyncDispose]();
    await teams?.close();
  });

  function conversationOf(activity: Record<string, unknown>): string {
    return (activity.conversation as { id: string }).id;
  }

  /** The bot's messages (typing left out) in `conversation` once one contains `needle`. */
  async function answers(conversation: string, needle: string): Promise<FakeTeamsActivity[]> {
    const end = Date.now() + 30_000;
    const messages = () => teams.activitiesIn(conversation).filter((a) => a.type === "message");
    while (!messages().some((message) => message.text.includes(needle))) {
      if (Date.now() > end) {
        throw new Error(`No "${needle}" in ${conversation}: ${JSON.stringify(teams.log.calls)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return messages();
  }

  function promptsMention(text: string, since: number): boolean {
    return gateway.model.requests.slice(since).some((request) =>
      JSON.stringify(request.body).includes(text)
    );
  }

  test("a DM is answered in one message streamed as edits, with a token from the app's credentials", async () => {
    const activity = teams.message(ADA, "hello there");
    assert.equal((await teams.deliver(webhook, activity)).status, 200);
    const conversation = conversationOf(activity);
    const [answer, ...more] = await answers(conversation, "You said: hello there");
    assert.deepEqual(more, []);
    assert.equal(answer!.text, "You said: hello there");
    // Posted as the placeholder, then edited as the text streamed in.
    assert.equal(
      teams.callsOf(SENT).filter((c) => c.params.type === "message")[0]?.params.text,
      "...",
    );
    assert.ok(answer!.updates >= 1);
    const [grant] = teams.callsOf("POST /{tenant}/oauth2/v2.0/token");
    assert.equal(grant!.params.__path, "/botframework.com/oauth2/v2.0/token");
    assert.equal(grant!.params.grant_type, "client_credentials");
    assert.equal(grant!.params.scope, "https://api.botframework.com/.default");
    assert.ok(
      teams.callsOf(SENT).every((call) =>
        /^Bearer [\w-]+\.[\w-]+\.[\w-]+$/.test(call.authorization)
      ),
    );
  });

  test("an unsigned, forged or misaddressed token gets 401 and runs nothing", async () => {
    const before = gateway.model.requests.length;
    const conversation = "a:dm-ada-forged";
    const forged = teams.message(ADA, "forged hello", { conversation });
    assert.equal((await teams.deliver(webhook, forged, { unsigned: true })).status, 401);
    assert.equal((await teams.deliver(webhook, forged, { forged: true })).status, 401);
    assert.equal((await teams.deliver(webhook, forged, { audience: "another-app" })).status, 401);
    // The token names where replies go; an activity naming another serviceUrl is refused.
    const elsewhere = { serviceUrl: "http://127.0.0.1:9/evil/" };
    assert.equal((await teams.deliver(webhook, forged, elsewhere)).status, 401);
    await teams.deliver(webhook, teams.message(ADA, "after the forgery", { conversation }));
    const messages = await answers(conversation, "You said: after the forgery");
    assert.deepEqual(messages.map((m) => m.text), ["You said: after the forgery"]);
    assert.equal(promptsMention("forged hello", before), false);
  });

  test("a stranger is refused, their comma command does not run, and the model never sees them", async () => {
    const before = gateway.model.requests.length;
    const hello = teams.message(EVE, "let me in");
    await teams.deliver(webhook, hello);
    await answers(conversationOf(hello), "Access denied.");
    const command = teams.message(EVE, ",help");
    await teams.deliver(webhook, command);
    const refusals = await answers(conversationOf(command), "Access denied.");
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.ok(
      refusals.every((message) => message.text === "Access denied."),
      JSON.stringify(refusals),
    );
    assert.equal(gateway.model.requests.length, before);
    assert.equal(promptsMention("let me in", before), false);
  });

  test("a comma command from an allowed user runs and answers without the model", async () => {
    const before = gateway.model.requests.length;
    const command = teams.message(ADA, ",help", { conversation: "a:dm-ada-commands" });
    await teams.deliver(webhook, command);
    const [help] = await answers("a:dm-ada-commands", "Commands start with ','");
    assert.match(help!.text, /,tape\.info/);
    assert.equal(gateway.model.requests.length, before);
  });

  test("a redelivered activity (same id) is answered once", async () => {
    const conversation = "a:dm-ada-redelivery";
    const activity = teams.message(ADA, "only once", { conversation });
    await teams.deliver(webhook, activity);
    await answers(conversation, "You said: only once");
    await teams.deliver(webhook, activity);
    const later = teams.message(ADA, "after the redelivery", { conversation });
    await teams.deliver(webhook, later);
    const messages = await answers(conversation, "You said: after the redelivery");
    assert.deepEqual(messages.map((m) => m.text), [
      "You said: only once",
      "You said: after the redelivery",
    ]);
  });

  test("a rate-limited send (429, Retry-After) is retried: the answer arrives once", async () => {
    const conversation = "a:dm-ada-limited";
    teams.rateLimit(SENT);
    await teams.deliver(webhook, teams.message(ADA, "despite the limit", { conversation }));
    const messages = await answers(conversation, "You said: despite the limit");
    assert.deepEqual(messages.map((m) => m.text), ["You said: despite the limit"]);
    // The streamed message itself went through and was edited; given up, the stream would have
    // failed and the turn's final answer been posted as a new, unedited message.
    assert.ok(messages[0]!.updates >= 1);
    const sends = teams.callsOf(SENT).filter((call) => call.params.type === "message");
    const limited = sends.filter((call) => call.params.rateLimited);
    assert.equal(limited.length, 1);
    // Tried again after the answer's Retry-After.
    assert.equal(sends.at(-1)!.params.__path, limited[0]!.params.__path);
  });

  test("a held call gets an Adaptive Card; a stranger's click is refused, the owner's Approve runs it once", async () => {
    const root = teams.message(ADA, "write the effect", {
      type: "channel",
      conversation: "19:general@thread.tacv2;messageid=1700000000001",
    });
    const conversation = conversationOf(root);
    await teams.deliver(webhook, root);
    const end = Date.now() + 30_000;
    while (teams.buttonsIn(conversation).length < 3 && Date.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const buttons = teams.buttonsIn(conversation);
    assert.deepEqual(buttons.map((b) => b.actionId), [
      "bub_approve",
      "bub_approve_always",
      "bub_deny",
    ]);
    // The channel post's `<at>bub</at>` mention is not part of the prompt.
    assert.ok(promptsMention('\\"message\\":\\"write the effect\\"', 0));
    const approve = buttons[0]!;
    const id = /^,approve ([a-z2-7]{10})$/.exec(approve.value ?? "")?.[1];
    assert.ok(id, approve.value);
    assert.equal(existsSync(effect), false);

    const options = { type: "channel" as const, conversation };
    assert.equal((await teams.deliver(webhook, teams.invoke(BOB, approve, options))).status, 200);
    await answers(conversation, "Comma commands are only accepted");
    assert.equal(existsSync(effect), false);

    const click = teams.submit(ADA, approve, options);
    assert.equal((await teams.deliver(webhook, click, { forged: true })).status, 401);
    assert.equal((await teams.deliver(webhook, click)).status, 200);
    await answers(conversation, "Effect written.");
    assert.equal(readFileSync(effect, "utf8"), "ran\n");
  });

  test("SIGTERM stops the gateway cleanly with exit code 0", async () => {
    process.kill(gateway.process.process.pid!, "SIGTERM");
    assert.equal(await gateway.process.exited(10_000), 0);
  });
});
