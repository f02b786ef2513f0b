/**
 * `bub gateway --enable-channel github` as a real subprocess: the fake GitHub delivers signed
 * `issue_comment` webhooks to the gateway's webhook server and receives the answers as issue
 * comments through its fake REST API (`BUB_GITHUB_API_BASE`); the mock model answers.
 *
 * Media: a comment's attachments (an `<img>` and a file link to the fake's attachment URLs,
 * which redirect to signed storage URLs) reach the model as content parts; the token goes to
 * the attachment URL only, never to the storage URL or another host. An answer's files (from
 * `_media_reply_plugin.ts`) cannot be attached on GitHub: the comment names them.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { FakeGitHubServer } from "../../../src/testing/fake_github.ts";
import { base64, pdfFile, PNG_BASE64, pngBytes } from "../../agent/_media_files.ts";
import { userParts, userText } from "./_echo_model.ts";
import { type Gateway, startGateway } from "./_gateway.ts";
import { CHART_URL, FILES_TEXT, HUGE_BYTES, SEND_THE_FILES } from "./_media_reply_plugin.ts";
import { startOutsider } from "./_outsider.ts";

const PLUGIN = fileURLToPath(new URL("./_media_reply_plugin.ts", import.meta.url));

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
      setup: (dirs) => dirs.writeConfig(`plugins:\n  - ${JSON.stringify(PLUGIN)}\n`),
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

  describe("GitHub attachments", () => {
    const png = pngBytes();

    test("an image and a PDF of a private repository's comment reach the model as parts; the token goes to the attachment URL only, not to the signed storage URL", async () => {
      const skip = gateway.model.requests.length;
      const calls = github.log.calls.length;
      const image = github.addAttachment("cat.png", "image/png", png, { private: true });
      const pdf = pdfFile();
      const file = github.addAttachment("report.pdf", "application/pdf", pdf, { private: true });
      const body = `@bub look at these\n\n<img width="300" alt="Image" src="${image}" />\n\n` +
        `[report.pdf](${file})`;
      const number = issue++;
      await github.deliver(webhook, github.commentEvent(ada, body, { number }));
      const parts = userParts(await gateway.modelRequest("look at these", skip));
      assert.ok(Array.isArray(parts), JSON.stringify(parts));
      assert.deepEqual(parts.find((part) => part.type === "image_url"), {
        type: "image_url",
        image_url: { url: `data:image/png;base64,${PNG_BASE64}` },
      });
      const part = parts.find((part) => part.type === "file")?.file as Record<string, string>;
      assert.equal(part.filename, "report.pdf");
      assert.equal(part.file_data, `data:application/pdf;base64,${base64(pdf)}`);
      const fetched = github.log.calls.slice(calls);
      const attachments = fetched.filter((call) => call.method === "attachment");
      const storage = fetched.filter((call) => call.method === "storage");
      assert.equal(attachments.length, 2);
      for (const call of attachments) assert.equal(call.authorization, `Bearer ${github.token}`);
      assert.equal(storage.length, 2);
      for (const call of storage) assert.equal(call.authorization, "");
    });

    test("an attachment over the media limit becomes a note in the content, not a part", async () => {
      const skip = gateway.model.requests.length;
      const big = new Uint8Array(3 * 1024 * 1024).fill(7);
      const file = github.addAttachment("huge.pdf", "application/pdf", big);
      const number = issue++;
      const event = github.commentEvent(ada, `@bub too big? [huge.pdf](${file})`, { number });
      await github.deliver(webhook, event);
      const parts = userParts(await gateway.modelRequest("too big?", skip));
      assert.match(userText(parts), /huge\.pdf/);
      assert.match(userText(parts), /larger than the 2097152 byte media limit/);
      if (Array.isArray(parts)) assert.equal(parts.some((part) => part.type === "file"), false);
    });

    test("a link on another host is not fetched, and a redirect to another host is not followed: the token never leaves GitHub", async () => {
      const skip = gateway.model.requests.length;
      await using outsider = await startOutsider(png);
      const foreign = outsider.origin;
      const redirected = github.addAttachment("moved.png", "image/png", png, {
        private: true,
        location: `${foreign}/stolen.png`,
      });
      const body = `@bub open these ![bait](${foreign}/user-attachments/assets/bait)\n` +
        `![moved](${redirected})`;
      await github.deliver(webhook, github.commentEvent(ada, body, { number: issue++ }));
      const parts = userParts(await gateway.modelRequest("open these", skip));
      assert.equal(
        Array.isArray(parts) && parts.some((part) => part.type === "image_url"),
        false,
      );
      assert.match(userText(parts), /could not be downloaded/);
      assert.deepEqual(outsider.seen, []);
    });

    test("an answer's files cannot be attached on GitHub: the comment names each with its type and size, and a URL stays a link", async () => {
      const number = issue++;
      await github.deliver(webhook, github.commentEvent(ada, `@bub ${SEND_THE_FILES}`, { number }));
      const posted = await comments(number, FILES_TEXT);
      const comment = posted.find((text) => text.includes(FILES_TEXT))!;
      assert.match(comment, /cannot attach files/);
      assert.ok(comment.includes(`cat.png\` (image/png, ${png.byteLength} bytes)`), comment);
      assert.ok(comment.includes(`report.pdf\` (application/pdf, ${pdfFile().byteLength} bytes)`));
      assert.ok(comment.includes(`huge.bin\` (application/octet-stream, ${HUGE_BYTES} bytes`));
      assert.match(comment, /over the 2097152 byte media limit/);
      assert.ok(comment.includes(`](${CHART_URL})`), comment);
    });
  });

  test("SIGTERM stops the gateway cleanly with exit code 0", async () => {
    process.kill(gateway.process.process.pid!, "SIGTERM");
    assert.equal(await gateway.process.exited(10_000), 0);
  });
});
