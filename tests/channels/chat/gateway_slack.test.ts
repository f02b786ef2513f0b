/**
 * `bub gateway --enable-channel slack` as a real subprocess, one for the whole file: the fake
 * Slack delivers signed Events API webhooks to the gateway's webhook server and receives the
 * answers through its fake Web API (`BUB_SLACK_API_BASE`); the mock model answers. With
 * `stream_output` the answer is streamed into one thread message (posted, then edited).
 *
 * Approvals: a mention whose turn calls `bash` under an `approvals:` rule gets the answer with
 * `,approve <id>` and an Approve / Always / Deny card; a click by a user who is not on
 * `allow_users` is refused and runs nothing; the asking user's click on Approve runs the command
 * once and the turn's answer arrives in the thread.
 *
 * Files: a signed mention carries files whose private URLs the fake serves only with the bot
 * token; the mock model (an OpenAI-compatible provider) receives an image, an audio file and a
 * PDF as content parts with the files' bytes. A file over the media limit becomes a note.
 *
 * Each test uses threads of its own; the model answers by the message (`echoOrEffectModel`).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { FakeSlackServer } from "../../../src/testing/fake_slack.ts";
import { base64, mp3Frame, pdfFile, PNG_BASE64 } from "../../agent/_media_files.ts";
import { echoOrEffectModel, userParts, WRITE_THE_EFFECT } from "./_echo_model.ts";
import { type Gateway, startGateway } from "./_gateway.ts";
import { startOutsider } from "./_outsider.ts";

describe("bub gateway serving Slack through the Chat SDK", () => {
  let slack: FakeSlackServer;
  let gateway: Gateway;
  let webhook: string;
  let effect: string;
  const ALLOWED = "UADA";
  const STRANGER = "UEVE";
  // Approvals: UBOB is not listed: no comma commands, no buttons.
  const OTHER = "UBOB";

  before(async () => {
    slack = await FakeSlackServer.start();
    gateway = await startGateway({
      channel: "slack",
      model: echoOrEffectModel(() => effect),
      env: {
        BUB_SLACK_BOT_TOKEN: slack.botToken,
        BUB_SLACK_SIGNING_SECRET: slack.signingSecret,
        BUB_SLACK_API_BASE: slack.apiBase,
        BUB_SLACK_ALLOW_USERS: ALLOWED,
        // The channel and the DM are served; a stranger there is still refused (both lists apply).
        BUB_SLACK_ALLOW_CHANNELS: "C0001,D0001",
        BUB_STREAM_OUTPUT: "true",
        BUB_APPROVALS: JSON.stringify([
          { tool: "bash", match: "effect\\.txt", reason: "writes the effect file" },
        ]),
      },
      context: () => JSON.stringify(slack.log.calls),
    });
    webhook = gateway.webhook;
    effect = join(gateway.dirs.workspace, "effect.txt");
  });

  after(async () => {
    await gateway?.[Symbol.asyncDispose]();
    await slack?.close();
  });

  /** The bot's messages in the thread of `ts` (in `channel`), once one contains `needle`. */
  async function thread(ts: string, needle: string, channel = "C0001"): Promise<string[]> {
    const posted = () =>
      slack.messagesIn(channel).filter((m) => m.threadTs === ts).map((m) => m.text);
    return await gateway.waitFor(
      () => posted().some((text) => text.includes(needle)) && posted(),
      `"${needle}" in thread ${ts}`,
    );
  }

  /** Waits for a message only `user` sees in the thread of `ts` containing `needle`. */
  async function ephemeral(user: string, ts: string, needle: string): Promise<string> {
    const [call] = await slack.log.waitFor(
      "chat.postEphemeral",
      1,
      (call) =>
        call.params.user === user && call.params.thread_ts === ts &&
        String(call.params.markdown_text ?? call.params.text).includes(needle),
    );
    return String(call!.params.markdown_text ?? call!.params.text);
  }

  function mention(user: string, text: string): Record<string, unknown> {
    return slack.messageEvent(user, `<@${slack.botUserId}> ${text}`);
  }

  function tsOf(event: Record<string, unknown>): string {
    return (event.event as { ts: string }).ts;
  }

  test("a mention is answered in its thread, streamed into one message that is edited", async () => {
    const event = mention(ALLOWED, "hello bub");
    assert.equal((await slack.deliver(webhook, event)).status, 200);
    const texts = await thread(tsOf(event), "You said: hello bub");
    // One message: the streamed one, not a second post of the final answer.
    assert.deepEqual(texts, ["You said: hello bub"]);
    const edits = slack.callsOf("chat.update").map((call) => call.params.markdown_text);
    assert.ok(edits.includes("You said: hello bub"), JSON.stringify(edits));
    // Typing: the thread's status is set while the turn runs.
    const typing = slack.callsOf("assistant.threads.setStatus");
    assert.ok(typing.some((call) => call.params.thread_ts === tsOf(event)));
    assert.match(gateway.process.stdout, /serving slack/);
  });

  test("a direct message (no mention) is answered in the DM, posted then edited as it streams", async () => {
    const event = slack.messageEvent(ALLOWED, "hello in private", { direct: true });
    assert.equal((await slack.deliver(webhook, event)).status, 200);
    const answer = () => slack.messagesIn("D0001").at(-1)?.text ?? "";
    await gateway.waitFor(() => answer().includes("You said: hello in private"), "the DM answer");
    // A top-level DM is one conversation: the answer goes to it, not into a thread.
    assert.deepEqual(slack.messagesIn("D0001"), [
      { ts: slack.messagesIn("D0001")[0]!.ts, text: "You said: hello in private", threadTs: null },
    ]);
    const edits = slack.callsOf("chat.update").filter((call) => call.params.channel === "D0001");
    assert.ok(edits.length >= 1);
  });

  test("a rate-limited post (429, Retry-After) is retried and the answer still arrives once", async () => {
    slack.rateLimit("chat.postMessage");
    const event = mention(ALLOWED, "despite the limit");
    await slack.deliver(webhook, event);
    assert.deepEqual(await thread(tsOf(event), "You said: despite the limit"), [
      "You said: despite the limit",
    ]);
    const limited = slack.callsOf("chat.postMessage").filter((call) => call.params.rateLimited);
    assert.equal(limited.length, 1);
  });

  test("a burst of follow-ups in one thread is not dropped: every message reaches the model", async () => {
    const first = mention(ALLOWED, "start a thread");
    await slack.deliver(webhook, first);
    await thread(tsOf(first), "You said: start a thread");
    const words = ["alpha", "bravo", "charlie", "delta"];
    const responses = await Promise.all(
      words.map((word) =>
        slack.deliver(webhook, slack.messageEvent(ALLOWED, word, { threadTs: tsOf(first) }))
      ),
    );
    assert.deepEqual(responses.map((response) => response.status), [200, 200, 200, 200]);
    const asked = () =>
      gateway.model.requests.map((request) => JSON.stringify(request.body)).join("\n");
    const missing = () => words.filter((word) => !asked().includes(word));
    await gateway.waitFor(() => missing().length === 0, "every follow-up to reach the model")
      .catch(() => assert.fail(`missing: ${missing().join(", ")}`));
  });

  test("a forged or missing signature gets 401 and runs nothing", async () => {
    const before = gateway.model.requests.length;
    const forgedEvent = mention(ALLOWED, "forged");
    const forged = await slack.deliver(webhook, forgedEvent, { secret: "wrong" });
    assert.equal(forged.status, 401);
    const unsignedEvent = mention(ALLOWED, "unsigned");
    const unsigned = await slack.deliver(webhook, unsignedEvent, { unsigned: true });
    assert.equal(unsigned.status, 401);
    const later = mention(ALLOWED, "after the forgery");
    await slack.deliver(webhook, later);
    await thread(tsOf(later), "You said: after the forgery");
    const asked = gateway.model.requests.slice(before).map((request) =>
      JSON.stringify(request.body)
    );
    assert.ok(asked.every((body) => !body.includes("forged") && !body.includes("unsigned")));
    const touched = slack.log.calls.filter((call) =>
      [tsOf(forgedEvent), tsOf(unsignedEvent)].some((ts) =>
        call.params.thread_ts === ts || call.params.ts === ts
      )
    );
    assert.deepEqual(touched, []);
  });

  test("a stranger is refused in a message only they see, and the model never sees theirs", async () => {
    const before = gateway.model.requests.length;
    const event = mention(STRANGER, "let me in");
    await slack.deliver(webhook, event);
    assert.equal(await ephemeral(STRANGER, tsOf(event), "Access denied."), "Access denied.");
    assert.deepEqual(slack.messagesIn("C0001").filter((m) => m.threadTs === tsOf(event)), []);
    const later = mention(ALLOWED, "after the stranger");
    await slack.deliver(webhook, later);
    await thread(tsOf(later), "You said: after the stranger");
    const asked = gateway.model.requests.slice(before).map((request) =>
      JSON.stringify(request.body)
    );
    assert.ok(asked.every((body) => !body.includes("let me in")));
  });

  test("a comma command runs for an allowed user and is refused to a stranger", async () => {
    const before = gateway.model.requests.length;
    const mine = mention(ALLOWED, ",help");
    await slack.deliver(webhook, mine);
    const [help] = await thread(tsOf(mine), "Commands start with ','");
    assert.match(help!, /,tape\.info/);
    const theirs = mention(STRANGER, ",help");
    await slack.deliver(webhook, theirs);
    // Not on allow_users: refused (only they see it) before any command runs.
    await ephemeral(STRANGER, tsOf(theirs), "Access denied.");
    assert.deepEqual(slack.messagesIn("C0001").filter((m) => m.threadTs === tsOf(theirs)), []);
    assert.equal(gateway.model.requests.length, before);
  });

  test("a redelivery of the same event (Slack retry headers) is answered once", async () => {
    const event = mention(ALLOWED, "only once");
    const eventId = String(event.event_id);
    assert.equal((await slack.deliver(webhook, event)).status, 200);
    await thread(tsOf(event), "You said: only once");
    for (const retryNum of [1, 2, undefined]) {
      // Retries carry X-Slack-Retry-Num; the last one does not (the message itself repeats).
      const again = await slack.deliver(webhook, event, { eventId, retryNum });
      assert.equal(again.status, 200);
    }
    const later = mention(ALLOWED, "after the retries");
    await slack.deliver(webhook, later);
    await thread(tsOf(later), "You said: after the retries");
    assert.deepEqual(
      slack.messagesIn("C0001").filter((m) => m.threadTs === tsOf(event)).map((m) => m.text),
      ["You said: only once"],
    );
    const asked = gateway.model.requests.map((request) => JSON.stringify(request.body));
    assert.equal(asked.filter((body) => body.includes("only once")).length, 1);
  });

  describe("approvals as Slack buttons", () => {
    test("a held call gets buttons; a stranger's click is refused, the owner's Approve runs it once", async () => {
      const event = slack.messageEvent(ALLOWED, `<@${slack.botUserId}> ${WRITE_THE_EFFECT}`);
      const threadTs = (event.event as { ts: string }).ts;
      await slack.deliver(webhook, event);
      const buttons = await gateway.waitFor(() => {
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

      const forged = await slack.click(webhook, ALLOWED, approve, { secret: "wrong" });
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

      assert.equal((await slack.click(webhook, ALLOWED, approve)).status, 200);
      await gateway.waitFor(
        () => texts().find((text) => text.includes("Effect written.")),
        "the answer",
      );
      assert.equal(readFileSync(effect, "utf8"), "ran\n");
      const asked = gateway.model.requests.filter((request) =>
        JSON.stringify(request.body).includes(WRITE_THE_EFFECT)
      );
      assert.equal(asked.length, 2);
    });
  });

  describe("Slack files passed to the model", () => {
    test("an image, an audio file and a PDF arrive as image_url, input_audio and file parts, fetched with the bot token", async () => {
      const before = slack.callsOf("files-pri").length;
      const skip = gateway.model.requests.length;
      const png = Uint8Array.from(atob(PNG_BASE64), (c) => c.charCodeAt(0));
      const mp3 = mp3Frame();
      const pdf = pdfFile();
      const files = [
        slack.addFile("cat.png", "image/png", png),
        slack.addFile("memo.mp3", "audio/mpeg", mp3),
        slack.addFile("report.pdf", "application/pdf", pdf),
      ];
      const event = slack.messageEvent(ALLOWED, `<@${slack.botUserId}> look at these`, { files });
      assert.equal((await slack.deliver(webhook, event)).status, 200);
      const parts = userParts(await gateway.modelRequest("look at these", skip));
      assert.ok(Array.isArray(parts), JSON.stringify(parts));
      const text = String(parts.find((part) => part.type === "text")?.text);
      assert.match(text, /look at these/);
      assert.match(text, /cat\.png/);
      assert.deepEqual(parts.find((part) => part.type === "image_url"), {
        type: "image_url",
        image_url: { url: `data:image/png;base64,${base64(png)}` },
      });
      assert.deepEqual(parts.find((part) => part.type === "input_audio"), {
        type: "input_audio",
        input_audio: { data: base64(mp3), format: "mp3" },
      });
      const file = parts.find((part) => part.type === "file")?.file as Record<string, string>;
      assert.equal(file.filename, "report.pdf");
      assert.equal(file.file_data, `data:application/pdf;base64,${base64(pdf)}`);
      // Each private URL was fetched with the bot token.
      const downloads = slack.callsOf("files-pri").slice(before);
      assert.equal(downloads.length, 3);
      for (const call of downloads) assert.equal(call.authorization, `Bearer ${slack.botToken}`);
    });

    test("a file over the media limit is not downloaded: the model gets a note instead of the part", async () => {
      const before = slack.callsOf("files-pri").length;
      const skip = gateway.model.requests.length;
      const big = new Uint8Array(3 * 1024 * 1024).fill(7);
      const files = [slack.addFile("huge.pdf", "application/pdf", big)];
      const event = slack.messageEvent(ALLOWED, `<@${slack.botUserId}> too big?`, { files });
      assert.equal((await slack.deliver(webhook, event)).status, 200);
      const parts = userParts(await gateway.modelRequest("too big?", skip));
      const text = typeof parts === "string"
        ? parts
        : String(parts.find((part) => part.type === "text")?.text);
      assert.match(text, /huge\.pdf/);
      assert.match(text, /larger than the 2097152 byte media limit/);
      if (Array.isArray(parts)) assert.equal(parts.some((part) => part.type === "file"), false);
      assert.equal(slack.callsOf("files-pri").length, before);
    });

    test("a file URL on another host is not fetched: the bot token never leaves Slack's hosts", async () => {
      const skip = gateway.model.requests.length;
      await using outsider = await startOutsider("stolen");
      const file = {
        ...slack.addFile("bait.png", "image/png", new Uint8Array([1])),
        url_private: `${outsider.origin}/files-pri/T0001-F1/bait.png`,
      };
      const event = slack.messageEvent(ALLOWED, `<@${slack.botUserId}> open this`, {
        files: [file],
      });
      assert.equal((await slack.deliver(webhook, event)).status, 200);
      const parts = userParts(await gateway.modelRequest("open this", skip));
      assert.equal(
        Array.isArray(parts) && parts.some((part) => part.type === "image_url"),
        false,
      );
      assert.deepEqual(outsider.seen, []);
    });
  });

  // Last but one: on Node the refused upload's socket is closed under fetch's keep-alive pool.
  test("a body over the limit is refused with 413 while it streams in", async () => {
    const huge = new ReadableStream<Uint8Array>({
      start(controller) {
        const chunk = new Uint8Array(64 * 1024).fill(0x20);
        for (let i = 0; i < 40; i++) controller.enqueue(chunk);
        controller.close();
      },
    });
    const response = await fetch(webhook, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: huge,
      duplex: "half",
    } as RequestInit);
    assert.equal(response.status, 413);
    await response.body?.cancel();
  });

  test("SIGTERM stops the gateway cleanly with exit code 0", async () => {
    process.kill(gateway.process.process.pid!, "SIGTERM");
    assert.equal(await gateway.process.exited(10_000), 0);
  });
});
