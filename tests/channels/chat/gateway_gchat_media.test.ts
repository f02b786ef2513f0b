/**
 * Media in and out of `bub gateway --enable-channel gchat` (one real subprocess for the file).
 *
 * In: a file uploaded to a message is fetched through the fake Chat API's media download with
 * the service account's token and reaches the mock model as a content part; a Google Drive file
 * is named with a note, not downloaded; a file over the media limit becomes a note; an
 * attachment's `downloadUri` (for people signed in to Google Chat, here on a foreign host) is
 * never fetched, and a resource name cannot climb out of the media download.
 *
 * Out: a plugin adds a PNG and a PDF to an answer; a Chat app cannot upload files, so the answer
 * names each in a note and nothing is uploaded.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { FakeGChatServer } from "../../../src/testing/fake_gchat.ts";
import { base64, pdfFile, PNG_BASE64 } from "../../agent/_media_files.ts";
import { userParts } from "./_echo_model.ts";
import { type Gateway, startGateway } from "./_gateway.ts";
import { FILES_TEXT, SEND_THE_FILES, writeMediaOutPlugin } from "./_media_out_plugin.ts";
import { gchatEnv } from "./_platform_env.ts";
import { startOutsider } from "./_outsider.ts";

describe("bub gateway: Google Chat media in and out", () => {
  let gchat: FakeGChatServer;
  let gateway: Gateway;
  const ada = { name: "users/101", displayName: "Ada" };
  const png = Uint8Array.from(atob(PNG_BASE64), (c) => c.charCodeAt(0));
  let spaces = 1;

  before(async () => {
    gchat = await FakeGChatServer.start();
    gateway = await startGateway({
      channel: "gchat",
      env: { ...gchatEnv(gchat), BUB_GCHAT_ALLOW_USERS: ada.name },
      setup: writeMediaOutPlugin,
      context: () => JSON.stringify(gchat.log.calls.map((call) => call.method)),
    });
  });

  after(async () => {
    await gateway?.[Symbol.asyncDispose]();
    await gchat?.close();
  });

  function promptText(parts: ReturnType<typeof userParts>): string {
    if (typeof parts === "string") return parts;
    return parts.filter((part) => part.type === "text").map((part) => String(part.text)).join("\n");
  }

  test("an uploaded image and PDF reach the model as parts, downloaded with the service account's token", async () => {
    const skip = gateway.model.requests.length;
    const before = gchat.mediaDownloads.length;
    const pdf = pdfFile();
    const event = gchat.messageEvent(ada, "look at these", {
      space: `spaces/M${spaces++}`,
      attachments: [
        gchat.attachment("cat.png", "image/png", png),
        gchat.attachment("report.pdf", "application/pdf", pdf),
      ],
    });
    assert.equal((await gchat.deliver(gateway.webhook, event)).status, 200);
    const parts = userParts(await gateway.modelRequest("look at these", skip));
    assert.ok(Array.isArray(parts), JSON.stringify(parts));
    assert.match(promptText(parts), /cat\.png/);
    assert.deepEqual(parts.find((part) => part.type === "image_url"), {
      type: "image_url",
      image_url: { url: `data:image/png;base64,${base64(png)}` },
    });
    const file = parts.find((part) => part.type === "file")?.file as Record<string, string>;
    assert.equal(file.file_data, `data:application/pdf;base64,${base64(pdf)}`);
    const downloads = gchat.mediaDownloads.slice(before);
    assert.equal(downloads.length, 2);
    for (const call of downloads) {
      assert.match(call.authorization, /^Bearer ya29\.fake-/);
      assert.equal(call.params.alt, "media");
    }
  });

  test("a Google Drive file is named with a note, not downloaded", async () => {
    const skip = gateway.model.requests.length;
    const before = gchat.mediaDownloads.length;
    const event = gchat.messageEvent(ada, "read my doc", {
      space: `spaces/M${spaces++}`,
      attachments: [gchat.driveAttachment("plan.docx", "application/vnd.google-apps.document")],
    });
    await gchat.deliver(gateway.webhook, event);
    const text = promptText(userParts(await gateway.modelRequest("read my doc", skip)));
    assert.match(text, /plan\.docx/);
    assert.match(text, /a Google Drive file: not downloaded/);
    assert.equal(gchat.mediaDownloads.length, before);
  });

  test("a file over the media limit becomes a note in the prompt instead of a part", async () => {
    const skip = gateway.model.requests.length;
    const big = new Uint8Array(3 * 1024 * 1024).fill(7);
    const event = gchat.messageEvent(ada, "too big?", {
      space: `spaces/M${spaces++}`,
      attachments: [gchat.attachment("huge.png", "image/png", big)],
    });
    await gchat.deliver(gateway.webhook, event);
    const parts = userParts(await gateway.modelRequest("too big?", skip));
    assert.match(
      promptText(parts),
      /huge\.png: not shown: larger than the 2097152 byte media limit/,
    );
    if (Array.isArray(parts)) assert.equal(parts.some((part) => part.type === "image_url"), false);
  });

  test("a downloadUri on another host is never fetched, and a resource name cannot leave the media download", async () => {
    const skip = gateway.model.requests.length;
    const before = gchat.log.calls.length;
    await using outsider = await startOutsider(png);
    const event = gchat.messageEvent(ada, "open this", {
      space: `spaces/M${spaces++}`,
      attachments: [
        {
          contentName: "bait.png",
          contentType: "image/png",
          downloadUri: `${outsider.origin}/bait.png`,
          source: "UPLOADED_CONTENT",
        },
        {
          contentName: "climb.png",
          contentType: "image/png",
          attachmentDataRef: { resourceName: "../../v1/spaces/AAA/messages" },
          source: "UPLOADED_CONTENT",
        },
      ],
    });
    await gchat.deliver(gateway.webhook, event);
    const parts = userParts(await gateway.modelRequest("open this", skip));
    assert.equal(Array.isArray(parts) && parts.some((p) => p.type === "image_url"), false);
    assert.match(promptText(parts), /not downloadable/);
    assert.deepEqual(outsider.seen, []);
    const apiGets = gchat.log.calls.slice(before).filter((c) => c.method.startsWith("GET /v1/"));
    assert.deepEqual(apiGets.map((call) => call.method), []);
  });

  test("an answer's files, which a Chat app cannot upload, are named in notes", async () => {
    const space = `spaces/M${spaces++}`;
    await gchat.deliver(gateway.webhook, gchat.messageEvent(ada, SEND_THE_FILES, { space }));
    const message = await gateway.waitFor(
      () => gchat.messagesIn(space).find((m) => m.text.startsWith(FILES_TEXT)),
      "the files message",
    );
    const reason = "a Google Chat app cannot upload files (Google allows attachment uploads " +
      "only with a signed-in user's authorization)";
    assert.equal(
      message.text,
      `${FILES_TEXT}\n\n[chart.png not attached: ${reason}]\n[report.pdf not attached: ${reason}]`,
    );
    assert.equal(gchat.log.calls.some((call) => call.method.includes("upload")), false);
  });
});
