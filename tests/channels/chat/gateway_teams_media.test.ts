/**
 * Media in and out of `bub gateway --enable-channel teams` (one real subprocess for the file).
 *
 * In: an image pasted into a message is an attachment on the fake's Bot Framework attachment
 * service, which serves it to the bot's token only; a file sent in a personal chat has a
 * pre-authorized download link (no token). The mock model receives them as content parts. A file
 * over the media limit becomes a note; one on a host that is not Teams' is not fetched; the bot's
 * token goes to the Bot Framework service the activity came through and nowhere else.
 *
 * Out: a plugin adds a PNG and a PDF to an answer. In a personal chat the PNG is an inline image
 * (a `data:` URL) and the PDF is offered with a file consent card; accepted, its bytes are put
 * into the upload session Teams names and a file info card links it. In a channel the PDF, which
 * a bot cannot send there, is named in a note.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { FakeTeamsActivity } from "../../../src/testing/fake_teams.ts";
import { FakeTeamsServer } from "../../../src/testing/fake_teams.ts";
import { base64, pdfFile, PNG_BASE64 } from "../../agent/_media_files.ts";
import { userParts } from "./_echo_model.ts";
import { type Gateway, startGateway } from "./_gateway.ts";
import { teamsEnv } from "./_platform_env.ts";
import {
  CHART_PNG,
  FILES_TEXT,
  REPORT_PDF,
  SEND_THE_FILES,
  writeMediaOutPlugin,
} from "./_media_out_plugin.ts";

describe("bub gateway: Microsoft Teams media in and out", () => {
  let teams: FakeTeamsServer;
  let gateway: Gateway;
  const ADA = { id: "29:ada", name: "Ada", aadObjectId: "aad-ada" };
  const ATTACHMENTS = "/teams/v3/attachments/";
  const png = Uint8Array.from(atob(PNG_BASE64), (c) => c.charCodeAt(0));
  let conversations = 1;

  before(async () => {
    teams = await FakeTeamsServer.start();
    gateway = await startGateway({
      channel: "teams",
      env: {
        ...teamsEnv(teams),
        BUB_TEAMS_ALLOW_USERS: ADA.id,
      },
      setup: writeMediaOutPlugin,
      context: () => JSON.stringify(teams.log.calls.map((call) => call.method)),
    });
  });

  after(async () => {
    await gateway?.[Symbol.asyncDispose]();
    await teams?.close();
  });

  /** The text of a model request's prompt (all its text parts). */
  function promptText(parts: ReturnType<typeof userParts>): string {
    if (typeof parts === "string") return parts;
    return parts.filter((part) => part.type === "text").map((part) => String(part.text)).join("\n");
  }

  /** The fake's log entries for `path` (the method names a pattern; the path is exact). */
  function callsTo(pathPrefix: string) {
    return teams.log.calls.filter((call) => String(call.params.__path).startsWith(pathPrefix));
  }

  test("a pasted image reaches the model as an image part, fetched with the bot's token", async () => {
    const skip = gateway.model.requests.length;
    const before = callsTo(ATTACHMENTS).length;
    const image = teams.inlineImage(png);
    const activity = teams.message(ADA, "what is in this picture", {
      conversation: `a:dm-media-${conversations++}`,
      attachments: [image, { contentType: "text/html", content: "<p><img src='x'></p>" }],
    });
    assert.equal((await teams.deliver(gateway.webhook, activity)).status, 200);
    const parts = userParts(await gateway.modelRequest("what is in this picture", skip));
    assert.ok(Array.isArray(parts), JSON.stringify(parts));
    assert.deepEqual(parts.find((part) => part.type === "image_url"), {
      type: "image_url",
      image_url: { url: `data:image/png;base64,${base64(png)}` },
    });
    const [download] = callsTo(ATTACHMENTS).slice(before);
    assert.match(download!.authorization, /^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
  });

  test("a file sent in a personal chat is downloaded from its link without a token", async () => {
    const skip = gateway.model.requests.length;
    const pdf = pdfFile();
    const activity = teams.message(ADA, "summarize the report", {
      conversation: `a:dm-media-${conversations++}`,
      attachments: [teams.fileDownload("report.pdf", pdf, "pdf")],
    });
    await teams.deliver(gateway.webhook, activity);
    const parts = userParts(await gateway.modelRequest("summarize the report", skip));
    assert.ok(Array.isArray(parts), JSON.stringify(parts));
    const file = parts.find((part) => part.type === "file")?.file as Record<string, string>;
    assert.equal(file.filename, "report.pdf");
    assert.equal(file.file_data, `data:application/pdf;base64,${base64(pdf)}`);
    const downloads = callsTo("/files/");
    assert.equal(downloads.length, 1);
    assert.equal(downloads[0]!.authorization, "");
  });

  test("an image over the media limit becomes a note in the prompt instead of a part", async () => {
    const skip = gateway.model.requests.length;
    const big = new Uint8Array(3 * 1024 * 1024).fill(7);
    const activity = teams.message(ADA, "is this too big", {
      conversation: `a:dm-media-${conversations++}`,
      attachments: [teams.inlineImage(big)],
    });
    await teams.deliver(gateway.webhook, activity);
    const parts = userParts(await gateway.modelRequest("is this too big", skip));
    assert.match(promptText(parts), /not shown: larger than the 2097152 byte media limit/);
    if (Array.isArray(parts)) assert.equal(parts.some((part) => part.type === "image_url"), false);
  });

  test("the bot's token goes to the activity's Bot Framework service only: a foreign host gets nothing, another origin no token", async () => {
    const skip = gateway.model.requests.length;
    const seen: { host: string; authorization: string }[] = [];
    const bait = (host: string) =>
      createServer((req, res) => {
        seen.push({ host, authorization: String(req.headers.authorization ?? "") });
        res.writeHead(200, { "content-type": "image/png" }).end(png);
      });
    const foreign = bait("127.0.0.2");
    const sameHost = bait("127.0.0.1");
    await new Promise<void>((resolve) => foreign.listen(0, "127.0.0.2", resolve));
    await new Promise<void>((resolve) => sameHost.listen(0, "127.0.0.1", resolve));
    try {
      const port = (server: typeof foreign) => (server.address() as { port: number }).port;
      const activity = teams.message(ADA, "open these", {
        conversation: `a:dm-media-${conversations++}`,
        attachments: [
          {
            contentType: "image/png",
            contentUrl: `http://127.0.0.2:${port(foreign)}/teams/v3/attachments/x/views/original`,
          },
          {
            contentType: "application/vnd.microsoft.teams.file.download.info",
            name: "stolen.pdf",
            content: { downloadUrl: `http://127.0.0.2:${port(foreign)}/files/x`, fileType: "pdf" },
          },
          {
            contentType: "image/png",
            contentUrl: `http://127.0.0.1:${port(sameHost)}/teams/v3/attachments/y/views/original`,
          },
        ],
      });
      await teams.deliver(gateway.webhook, activity);
      const parts = userParts(await gateway.modelRequest("open these", skip));
      assert.match(promptText(parts), /127\.0\.0\.2 is not a file host of teams/);
      // The loopback host is the fake's (api_base) host: fetched, but without the token, which
      // belongs to the serviceUrl's origin alone.
      assert.deepEqual(seen, [{ host: "127.0.0.1", authorization: "" }]);
    } finally {
      await new Promise((resolve) => foreign.close(resolve));
      await new Promise((resolve) => sameHost.close(resolve));
    }
  });

  const CONSENT = "application/vnd.microsoft.teams.card.file.consent";

  /** The bot's message in `conversation` with an attachment of `contentType`, once it is there. */
  function withAttachment(conversation: string, contentType: string): Promise<FakeTeamsActivity> {
    return gateway.waitFor(
      () =>
        teams.activitiesIn(conversation).find((a) =>
          a.attachments.some((x) => x.contentType === contentType)
        ),
      `a message with a ${contentType} attachment`,
    );
  }

  test("in a personal chat an answer's image is inline and its PDF offered for consent, uploaded when accepted", async () => {
    const conversation = `a:dm-media-${conversations++}`;
    await teams.deliver(gateway.webhook, teams.message(ADA, SEND_THE_FILES, { conversation }));
    const card = await withAttachment(conversation, CONSENT);
    const files = teams.activitiesIn(conversation).find((a) => a.text === FILES_TEXT);
    assert.deepEqual(files!.attachments, [{
      contentType: "image/png",
      contentUrl: `data:image/png;base64,${base64(CHART_PNG)}`,
      name: "chart.png",
    }]);
    const consent = card!.attachments[0] as {
      contentType: string;
      content: { sizeInBytes: number };
    };
    assert.equal(consent.content.sizeInBytes, REPORT_PDF.byteLength);

    const accept = teams.fileConsent(ADA, card, "accept", { conversation });
    assert.equal((await teams.deliver(gateway.webhook, accept)).status, 200);
    const [upload] = [...teams.uploads.values()];
    assert.ok(upload, JSON.stringify(teams.log.calls.map((call) => call.method)));
    assert.deepEqual([...upload.data], [...REPORT_PDF]);
    assert.equal(
      upload.contentRange,
      `bytes 0-${REPORT_PDF.byteLength - 1}/${REPORT_PDF.byteLength}`,
    );
    assert.equal(upload.authorization, "");
    const info = await withAttachment(
      conversation,
      "application/vnd.microsoft.teams.card.file.info",
    );
    assert.equal((info.attachments[0] as { name?: string }).name, "report.pdf");
    assert.equal(card.deleted, true);
  });

  test("a declined file is not uploaded and its card goes away", async () => {
    const conversation = `a:dm-media-${conversations++}`;
    const uploads = teams.uploads.size;
    await teams.deliver(gateway.webhook, teams.message(ADA, SEND_THE_FILES, { conversation }));
    const card = await withAttachment(conversation, CONSENT);
    const decline = teams.fileConsent(ADA, card, "decline", { conversation });
    assert.equal((await teams.deliver(gateway.webhook, decline)).status, 200);
    await gateway.waitFor(() => card.deleted, "the consent card to be deleted");
    assert.equal(teams.uploads.size, uploads);
  });

  test("in a channel the PDF, which a bot cannot send there, is named in a note next to the inline image", async () => {
    const root = teams.message(ADA, SEND_THE_FILES, {
      type: "channel",
      conversation: "19:media@thread.tacv2;messageid=1700000000009",
    });
    const conversation = (root.conversation as { id: string }).id;
    await teams.deliver(gateway.webhook, root);
    const files = await gateway.waitFor(
      () => teams.activitiesIn(conversation).find((a) => a.text.startsWith(FILES_TEXT)),
      "the files message",
    );
    assert.equal(
      files.text,
      `${FILES_TEXT}\n\n[report.pdf not attached: a Teams bot can send files only in a personal chat]`,
    );
    assert.deepEqual(files.attachments.map((a) => a.contentType), ["image/png"]);
    assert.equal(
      teams.activitiesIn(conversation).some((a) =>
        a.attachments.some((x) => x.contentType === CONSENT)
      ),
      false,
    );
  });
});
