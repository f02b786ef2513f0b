/**
 * `bub gateway --enable-channel linear` as a real subprocess: the fake Linear delivers signed
 * `Comment` webhooks to the gateway's webhook server and receives the answers as reply comments
 * through its fake GraphQL API (`BUB_LINEAR_API_BASE`), streamed as a comment edited to the
 * answer; the mock model answers, or calls `bash` under an `approvals:` rule, which Linear
 * (no buttons) approves by a `,approve <id>` comment.
 *
 * Media: uploads linked in a comment (served by the fake to the API key only) reach the model as
 * content parts; a link on another host is not fetched. An answer's files (from
 * `_media_reply_plugin.ts`) are uploaded through `fileUpload` and a PUT to the signed URL
 * (without the API key) and embedded in the comment.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { FakeLinearServer } from "../../../src/testing/fake_linear.ts";
import { base64, pdfFile, PNG_BASE64, pngBytes } from "../../agent/_media_files.ts";
import { echoOrEffectModel, userParts, userText } from "./_echo_model.ts";
import { type Gateway, startGateway } from "./_gateway.ts";
import { CHART_URL, FILES_TEXT, HUGE_BYTES, SEND_THE_FILES } from "./_media_reply_plugin.ts";
import { startOutsider } from "./_outsider.ts";

const PLUGIN = fileURLToPath(new URL("./_media_reply_plugin.ts", import.meta.url));

describe("bub gateway serving Linear issue comments through the Chat SDK", () => {
  let linear: FakeLinearServer;
  let gateway: Gateway;
  let webhook: string;
  let effect: string;
  const ada = { id: "user-ada", name: "ada" };
  const eve = { id: "user-eve", name: "eve" };
  let issues = 1;

  before(async () => {
    linear = await FakeLinearServer.start();
    gateway = await startGateway({
      channel: "linear",
      model: echoOrEffectModel(() => effect),
      env: {
        BUB_LINEAR_API_KEY: linear.apiKey,
        BUB_LINEAR_WEBHOOK_SECRET: linear.webhookSecret,
        BUB_LINEAR_API_BASE: linear.apiBase,
        BUB_LINEAR_USER_NAME: linear.bot.name,
        BUB_LINEAR_ALLOW_USERS: ada.name,
        BUB_STREAM_OUTPUT: "true",
        BUB_APPROVALS: JSON.stringify([
          { tool: "bash", match: "effect\\.txt", reason: "writes the effect file" },
        ]),
      },
      context: () => JSON.stringify(linear.log.calls),
      setup: (dirs) => dirs.writeConfig(`plugins:\n  - ${JSON.stringify(PLUGIN)}\n`),
    });
    webhook = gateway.webhook;
    effect = join(gateway.dirs.workspace, "effect.txt");
  });

  after(async () => {
    await gateway?.[Symbol.asyncDispose]();
    await linear?.close();
  });

  /** The bot's comments on `issue` once one of them includes `needle`. */
  async function comments(issue: string, needle: string): Promise<string[]> {
    const posted = () => linear.commentsOn(issue);
    return await gateway.waitFor(
      () => posted().some((text) => text.includes(needle)) && posted(),
      `"${needle}" on ${issue}`,
    );
  }

  function userTexts(): string[] {
    return gateway.model.requests.map((request) => {
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
    const before = gateway.model.requests.length;
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
    const before = gateway.model.requests.length;
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
    const before = gateway.model.requests.length;
    const issue = `issue-${issues++}`;
    await linear.deliver(webhook, linear.commentEvent(ada, "@bub ,help", { issueId: issue }));
    const [help] = await comments(issue, "Commands start with ','");
    assert.match(help!, /,tape\.info/);
    assert.equal(gateway.model.requests.length, before);
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

  describe("Linear uploads", () => {
    const png = pngBytes();

    test("an image and a PDF uploaded in a comment reach the model as parts, fetched with the API key", async () => {
      const skip = gateway.model.requests.length;
      const calls = linear.log.calls.length;
      const pdf = pdfFile();
      const image = linear.addUpload("cat.png", "image/png", png);
      const file = linear.addUpload("report.pdf", "application/pdf", pdf);
      const body = `@bub look at these\n\n![cat.png](${image})\n\n[report.pdf](${file})`;
      await linear.deliver(
        webhook,
        linear.commentEvent(ada, body, { issueId: `issue-${issues++}` }),
      );
      const parts = userParts(await gateway.modelRequest("look at these", skip));
      assert.ok(Array.isArray(parts), JSON.stringify(parts));
      assert.deepEqual(parts.find((part) => part.type === "image_url"), {
        type: "image_url",
        image_url: { url: `data:image/png;base64,${PNG_BASE64}` },
      });
      const part = parts.find((part) => part.type === "file")?.file as Record<string, string>;
      assert.equal(part.filename, "report.pdf");
      assert.equal(part.file_data, `data:application/pdf;base64,${base64(pdf)}`);
      const fetched = linear.log.calls.slice(calls).filter((call) => call.method === "upload");
      assert.equal(fetched.length, 2);
      for (const call of fetched) assert.equal(call.authorization, linear.apiKey);
    });

    test("an upload over the media limit becomes a note; a link on another host is not fetched and gets no key", async () => {
      const skip = gateway.model.requests.length;
      await using outsider = await startOutsider(png);
      const huge = linear.addUpload("huge.pdf", "application/pdf", new Uint8Array(HUGE_BYTES));
      const body = `@bub too big? [huge.pdf](${huge})\n\n` +
        `![bait](${outsider.origin}/uploads/org-acme/bait)`;
      const event = linear.commentEvent(ada, body, { issueId: `issue-${issues++}` });
      await linear.deliver(webhook, event);
      const parts = userParts(await gateway.modelRequest("too big?", skip));
      assert.match(userText(parts), /huge\.pdf/);
      assert.match(userText(parts), /larger than the 2097152 byte media limit/);
      if (Array.isArray(parts)) {
        assert.equal(
          parts.some((part) => part.type === "file" || part.type === "image_url"),
          false,
        );
      }
      assert.deepEqual(outsider.seen, []);
    });

    test("an answer's files are uploaded (fileUpload, then a PUT without the API key) and embedded in the comment", async () => {
      const issue = `issue-${issues++}`;
      const calls = linear.log.calls.length;
      const puts = linear.uploads.length;
      await linear.deliver(
        webhook,
        linear.commentEvent(ada, `@bub ${SEND_THE_FILES}`, { issueId: issue }),
      );
      const posted = await comments(issue, FILES_TEXT);
      const comment = posted.find((text) => text.includes(FILES_TEXT))!;
      const requested = linear.log.calls.slice(calls).filter((call) =>
        call.method === "fileUpload"
      );
      assert.deepEqual(
        requested.map((call) => [call.params.filename, call.params.contentType, call.params.size]),
        [["cat.png", "image/png", png.byteLength], [
          "report.pdf",
          "application/pdf",
          pdfFile().byteLength,
        ]],
      );
      for (const call of requested) assert.equal(call.authorization, linear.apiKey);
      const uploaded = linear.uploads.slice(puts);
      assert.equal(uploaded.length, 2);
      assert.deepEqual([...uploaded[0]!.data], [...png]);
      assert.deepEqual([...uploaded[1]!.data], [...pdfFile()]);
      for (const put of uploaded) {
        assert.equal(put.headers.authorization, undefined);
        assert.equal(put.headers["x-goog-meta-linear"], "fake-upload");
      }
      const assets = [...comment.matchAll(/\]\((http:\/\/127\.0\.0\.1:\d+\/uploads\/[^)]+)\)/g)];
      assert.equal(assets.length, 2, comment);
      assert.match(comment, /!\[cat\.png\]\(http:/);
      assert.match(comment, /[^!]\[report\.pdf\]\(http:/);
      // The embedded asset serves the uploaded bytes (to the API key).
      const served = await fetch(assets[0]![1]!, { headers: { authorization: linear.apiKey } });
      assert.deepEqual([...new Uint8Array(await served.arrayBuffer())], [...png]);
      assert.ok(comment.includes(`huge.bin\` (application/octet-stream, ${HUGE_BYTES} bytes`));
      assert.ok(comment.includes(`](${CHART_URL})`), comment);
    });
  });

  test("SIGTERM stops the gateway cleanly with exit code 0", async () => {
    process.kill(gateway.process.process.pid!, "SIGTERM");
    assert.equal(await gateway.process.exited(10_000), 0);
  });
});
