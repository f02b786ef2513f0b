/**
 * `bub gateway --enable-channel gchat` as a real subprocess: the fake Google Chat delivers
 * interaction events with a Bearer JWT signed by its own `chat@system.gserviceaccount.com` key
 * (`BUB_GCHAT_CERTS_URL`) or, as to a Workspace add-on, by its own Google OIDC key
 * (`BUB_GCHAT_OIDC_CERTS_URL`), grants the service account a token (`BUB_GCHAT_TOKEN_URL`) and receives
 * the answers through its fake Chat API (`BUB_GCHAT_API_BASE`), streamed as a message edited to
 * the answer; the mock model answers, or calls `bash` under an `approvals:` rule, approved by a
 * card button.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { FakeGChatServer } from "../../../src/testing/fake_gchat.ts";
import { echoOrEffectModel } from "./_echo_model.ts";
import { type Gateway, startGateway } from "./_gateway.ts";
import { gchatEnv } from "./_platform_env.ts";

describe("bub gateway serving Google Chat through the Chat SDK", () => {
  let gchat: FakeGChatServer;
  let gateway: Gateway;
  let webhook: string;
  let effect: string;
  const ada = { name: "users/101", displayName: "Ada" };
  const eve = { name: "users/666", displayName: "Eve" };
  let spaces = 1;
  const SPACE_CREATE = (space: string) => `POST /v1/${space}/messages`;

  before(async () => {
    gchat = await FakeGChatServer.start();
    gateway = await startGateway({
      channel: "gchat",
      model: echoOrEffectModel(() => effect),
      env: {
        ...gchatEnv(gchat),
        // The adapter's own variables must not act behind Bub's settings.
        GOOGLE_CHAT_DISABLE_SIGNATURE_VERIFICATION: "true",
        GOOGLE_CHAT_PUBSUB_TOPIC: "projects/acme/topics/chat",
        BUB_GCHAT_ALLOW_USERS: ada.name,
        BUB_STREAM_OUTPUT: "true",
        BUB_APPROVALS: JSON.stringify([
          { tool: "bash", match: "effect\\.txt", reason: "writes the effect file" },
        ]),
      },
      context: () => JSON.stringify(gchat.log.calls.map((call) => call.method)),
    });
    effect = join(gateway.dirs.workspace, "effect.txt");
    webhook = gateway.webhook;
  });

  after(async () => {
    await gateway?.[Symbol.asyncDispose]();
    await gchat?.close();
  });

  /** The texts of the bot's messages in `space` once one of them includes `needle`. */
  async function texts(space: string, needle: string): Promise<string[]> {
    const end = Date.now() + 30_000;
    const all = () => gchat.messagesIn(space).map((m) => m.text);
    while (!all().some((text) => text.includes(needle))) {
      if (Date.now() > end) {
        throw new Error(`No "${needle}" in ${space}: ${JSON.stringify(gchat.log.calls)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return all();
  }

  function userTexts(): string[] {
    return gateway.model.requests.map((request) => {
      const messages = (request.body as { messages: { role: string; content: unknown }[] })
        .messages;
      return JSON.stringify(messages.findLast((message) => message.role === "user")?.content);
    });
  }

  test("a mention is answered in its thread, streamed as edits, with the service account's token and despite a 429", async () => {
    const space = `spaces/S${spaces++}`;
    gchat.rateLimit(SPACE_CREATE(space));
    const event = gchat.messageEvent(ada, "hello there", { space });
    assert.equal((await gchat.deliver(webhook, event)).status, 200);
    assert.deepEqual(await texts(space, "You said: hello there"), ["You said: hello there"]);
    const [message] = gchat.messagesIn(space);
    const thread = (event.chat as { messagePayload: { message: { thread: { name: string } } } })
      .messagePayload.message.thread.name;
    assert.equal(message!.thread, thread);
    const creates = gchat.callsOf(SPACE_CREATE(space));
    assert.equal(creates.filter((call) => call.params.rateLimited).length, 1);
    assert.equal(creates.filter((call) => !call.params.rateLimited).length, 1);
    assert.ok(gchat.callsOf(`PUT /v1/${message!.name}`).length >= 1);
    assert.ok(gchat.callsOf("POST /token").length >= 1);
    assert.ok(creates.every((call) => call.authorization.startsWith("Bearer ya29.fake-")));
  });

  test("a token signed by another key, for another audience or missing gets 401 and runs nothing", async () => {
    const before = gateway.model.requests.length;
    const space = `spaces/S${spaces++}`;
    const forged = gchat.messageEvent(ada, "forged", { space });
    assert.equal((await gchat.deliver(webhook, forged, { forged: true })).status, 401);
    assert.equal((await gchat.deliver(webhook, forged, { audience: "999" })).status, 401);
    assert.equal((await gchat.deliver(webhook, forged, { unsigned: true })).status, 401);
    await gchat.deliver(webhook, gchat.messageEvent(ada, "after the forgery", { space }));
    assert.deepEqual(await texts(space, "after the forgery"), ["You said: after the forgery"]);
    assert.ok(userTexts().slice(before).every((text) => !text.includes("forged")));
  });

  test("an unverified Pub/Sub push gets 401 despite GOOGLE_CHAT_DISABLE_SIGNATURE_VERIFICATION", async () => {
    const before = gateway.model.requests.length;
    const space = `spaces/S${spaces++}`;
    const { message } = (gchat.messageEvent(ada, "pushed", { space }).chat as {
      messagePayload: { message: unknown };
    }).messagePayload;
    const push = {
      subscription: "projects/acme/subscriptions/chat",
      message: {
        data: Buffer.from(JSON.stringify({ message })).toString("base64"),
        attributes: { "ce-type": "google.workspace.chat.message.v1.created" },
      },
    };
    assert.equal((await gchat.deliver(webhook, push, { unsigned: true })).status, 401);
    await gchat.deliver(webhook, gchat.messageEvent(ada, "after the push", { space }));
    assert.deepEqual(await texts(space, "after the push"), ["You said: after the push"]);
    assert.ok(userTexts().slice(before).every((text) => !text.includes("pushed")));
  });

  test("a Workspace add-on's OIDC token for the endpoint URL is accepted from the app's add-on only", async () => {
    const space = `spaces/S${spaces++}`;
    const other = "service-999@gcp-sa-gsuiteaddons.iam.gserviceaccount.com";
    const event = (text: string) => gchat.messageEvent(ada, text, { space });
    assert.equal((await gchat.deliver(webhook, event("x"), { addOn: other })).status, 401);
    assert.equal(
      (await gchat.deliver(webhook, event("x"), { addOn: true, forged: true })).status,
      401,
    );
    const wrong = { addOn: true as const, audience: "https://elsewhere.test/" };
    assert.equal((await gchat.deliver(webhook, event("x"), wrong)).status, 401);
    const accepted = await gchat.deliver(webhook, event("from the add-on"), { addOn: true });
    assert.equal(accepted.status, 200);
    assert.deepEqual(await texts(space, "from the add-on"), ["You said: from the add-on"]);
    assert.ok(gchat.callsOf("GET /oauth2/v1/certs").length >= 1);
  });

  test("a direct message is answered in the DM without a mention", async () => {
    const space = `spaces/D${spaces++}`;
    await gchat.deliver(
      webhook,
      gchat.messageEvent(ada, "just us", { space, dm: true, mention: false }),
    );
    assert.deepEqual(await texts(space, "You said: just us"), ["You said: just us"]);
  });

  test("a stranger is told 'Access denied.' privately; the model never sees them", async () => {
    const before = gateway.model.requests.length;
    const space = `spaces/S${spaces++}`;
    await gchat.deliver(webhook, gchat.messageEvent(eve, "let me in", { space }));
    await texts(space, "Access denied.");
    const [refusal] = gchat.messagesIn(space);
    assert.equal(refusal!.viewer, eve.name);
    await gchat.deliver(webhook, gchat.messageEvent(ada, "after the stranger", { space }));
    await texts(space, "after the stranger");
    assert.ok(userTexts().slice(before).every((text) => !text.includes("let me in")));
  });

  test("a comma command from an allowed user runs; the stranger's does not", async () => {
    const before = gateway.model.requests.length;
    const space = `spaces/S${spaces++}`;
    await gchat.deliver(webhook, gchat.messageEvent(eve, ",help", { space }));
    await texts(space, "Access denied.");
    await gchat.deliver(webhook, gchat.messageEvent(ada, ",help", { space }));
    const all = await texts(space, "Commands start with ','");
    assert.equal(all.filter((text) => text.includes("Commands start with")).length, 1);
    assert.equal(gateway.model.requests.length, before);
  });

  test("a redelivered event (same message) is answered once", async () => {
    const space = `spaces/S${spaces++}`;
    const event = gchat.messageEvent(ada, "only once", { space });
    await gchat.deliver(webhook, event);
    await texts(space, "You said: only once");
    await gchat.deliver(webhook, event);
    const other = `spaces/S${spaces++}`;
    await gchat.deliver(webhook, gchat.messageEvent(ada, "after the redelivery", { space: other }));
    await texts(other, "after the redelivery");
    assert.deepEqual(gchat.messagesIn(space).map((m) => m.text), ["You said: only once"]);
    assert.equal(userTexts().filter((text) => text.includes("only once")).length, 1);
  });

  test("a held call gets a card; a stranger's click is refused, the owner's Approve runs it once", async () => {
    const space = `spaces/S${spaces++}`;
    await gchat.deliver(webhook, gchat.messageEvent(ada, "write the effect", { space }));
    const end = Date.now() + 30_000;
    let card = gchat.messagesIn(space).find((m) => m.buttons.length > 0);
    while (!card) {
      if (Date.now() > end) throw new Error(`No card: ${JSON.stringify(gchat.log.calls)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      card = gchat.messagesIn(space).find((m) => m.buttons.length > 0);
    }
    assert.deepEqual(card.buttons.map((b) => b.actionId), [
      "bub_approve",
      "bub_approve_always",
      "bub_deny",
    ]);
    const approve = card.buttons[0]!;
    assert.match(approve.value, /^,approve [a-z2-7]{10}$/);
    const forged = await gchat.deliver(webhook, gchat.clickEvent(ada, card, approve), {
      forged: true,
    });
    assert.equal(forged.status, 401);
    assert.equal((await gchat.deliver(webhook, gchat.clickEvent(eve, card, approve))).status, 200);
    await texts(space, "Comma commands are only accepted");
    const refusal = gchat.messagesIn(space).find((m) => m.text.startsWith("Comma commands"));
    assert.equal(refusal!.viewer, eve.name);
    assert.equal(existsSync(effect), false);
    assert.equal((await gchat.deliver(webhook, gchat.clickEvent(ada, card, approve))).status, 200);
    await texts(space, "Effect written.");
    assert.equal(readFileSync(effect, "utf8"), "ran\n");
  });

  test("SIGTERM stops the gateway cleanly with exit code 0", async () => {
    process.kill(gateway.process.process.pid!, "SIGTERM");
    assert.equal(await gateway.process.exited(10_000), 0);
  });
});
