/**
 * Files sent with a web-console message (issue 33 item 1): the JSON body's `media` list of
 * `{name, data_url}` becomes media parts the model receives as sent (an image, a voice note, a
 * PDF), the turn's `turn_start` event names the files, and every check of the console still
 * applies: the Bearer token, JSON content type, same origin and the body limit
 * (`console_max_body_bytes`); a malformed upload is a 400 naming the entry.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mockReply } from "../../../src/testing/mock_llm_server.ts";
import { definePlugin } from "../../../src/kernel/plugin.ts";
import { defineTool } from "../../../src/tools/tool.ts";
import { startWebConsole } from "../../../src/channels/web/console.ts";
import { turnFixture } from "../../agent/_turn_fixture.ts";
import { base64, oggOpusFile, pdfFile, PNG_BASE64 } from "../../agent/_media_files.ts";

type Part = Record<string, unknown>;

const PNG_URL = `data:image/png;base64,${PNG_BASE64}`;
const OGG = base64(oggOpusFile(2));
const PDF_URL = `data:application/pdf;base64,${base64(pdfFile())}`;

async function waitFor<T>(read: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

function userParts(body: Record<string, unknown>): Part[] {
  const messages = body.messages as Array<{ role: string; content: unknown }>;
  return messages.findLast((message) => message.role === "user")!.content as Part[];
}

describe("web console uploads", () => {
  test("an image, a voice note and a PDF sent with a message reach the model as image_url, input_audio and file parts", async () => {
    await using fx = await turnFixture({ script: [mockReply.text("got them")] });
    await using web = await startWebConsole(fx.bub);
    const posted = await fetch(`${web.url}/api/sessions/up/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${web.token}`, "content-type": "application/json" },
      body: JSON.stringify({
        content: "what are these?",
        media: [
          { name: "cat.png", data_url: PNG_URL },
          { name: "voice.ogg", data_url: `data:audio/ogg;base64,${OGG}` },
          { name: "report.pdf", data_url: PDF_URL },
        ],
      }),
    });
    assert.equal(posted.status, 202, await posted.clone().text());
    const body = await waitFor(() => fx.bodies()[0], "the model request");
    const parts = userParts(body);
    assert.match(String(parts[0]!.text), /what are these\?$/);
    assert.deepEqual(parts.slice(1), [
      { type: "image_url", image_url: { url: PNG_URL } },
      { type: "input_audio", input_audio: { data: OGG, format: "ogg" } },
      { type: "file", file: { file_data: PDF_URL, filename: "report.pdf" } },
    ]);
  });

  test("a message of files alone (empty text) is accepted", async () => {
    await using fx = await turnFixture({ script: [mockReply.text("a cat")] });
    await using web = await startWebConsole(fx.bub);
    const posted = await fetch(`${web.url}/api/sessions/only/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${web.token}`, "content-type": "application/json" },
      body: JSON.stringify({ content: "", media: [{ name: "cat.png", data_url: PNG_URL }] }),
    });
    assert.equal(posted.status, 202);
    const body = await waitFor(() => fx.bodies()[0], "the model request");
    assert.deepEqual(userParts(body).slice(1), [{
      type: "image_url",
      image_url: { url: PNG_URL },
    }]);
  });

  test("a file sent while a turn runs is steered into it: the turn's next model call sees the part", async () => {
    // The tool runs until the test has steered the file in (no timing involved).
    let release: (value: string) => void = () => {};
    const released = new Promise<string>((resolve) => release = resolve);
    const slow = defineTool({
      name: "slow",
      parameters: { type: "object" },
      handler: () => released,
    });
    await using fx = await turnFixture({
      script: [mockReply.toolCall("slow", {}, { id: "s1" }), mockReply.text("saw it")],
      plugins: [definePlugin({ name: "slow", tools: [slow] })],
    });
    await using web = await startWebConsole(fx.bub);
    const post = async (body: unknown) =>
      await (await fetch(`${web.url}/api/sessions/st/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${web.token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      })).json();
    assert.deepEqual(await post({ content: "first" }), {
      turn: 1,
      steered: false,
      session_id: "web:st",
    });
    await waitFor(() => fx.server.requests[0], "the first model call");
    const steered = await post({
      content: "and this",
      media: [{ name: "c.png", data_url: PNG_URL }],
    });
    assert.deepEqual(steered, { turn: 1, steered: true, session_id: "web:st" });
    release("done waiting");
    const second = await waitFor(() => fx.bodies()[1], "the second model call");
    const messages = second.messages as Array<{ role: string; content: unknown }>;
    const steer = messages.find((m) =>
      m.role === "user" && Array.isArray(m.content) &&
      (m.content as Part[]).some((part) => part.type === "image_url")
    );
    assert.ok(steer, JSON.stringify(messages).slice(0, 500));
    assert.deepEqual((steer.content as Part[]).slice(1), [
      { type: "image_url", image_url: { url: PNG_URL } },
    ]);
  });

  test("malformed uploads are a 400 naming the entry; the model is never called", async () => {
    await using fx = await turnFixture({ script: [mockReply.text("never")] });
    await using web = await startWebConsole(fx.bub);
    const cases: Array<[unknown, RegExp]> = [
      ["cat.png", /"media" must be a list/],
      [[{ name: "x.png", data_url: "https://evil.test/x.png" }], /media\[0\]\.data_url \(x\.png\)/],
      [[{ name: "x.png", data_url: "data:image/png,notbase64" }], /base64 data URL/],
      [[{ name: "../etc/passwd", data_url: PNG_URL }], /media\[0\]\.name/],
      [[{ data_url: PNG_URL }], /media\[0\]\.name/],
      [Array(11).fill({ name: "a.png", data_url: PNG_URL }), /11 files in one message; at most 10/],
    ];
    for (const [media, message] of cases) {
      const response = await fetch(`${web.url}/api/sessions/bad/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${web.token}`, "content-type": "application/json" },
        body: JSON.stringify({ content: "look", media }),
      });
      assert.equal(response.status, 400, JSON.stringify(media).slice(0, 80));
      const { error } = await response.json();
      assert.equal(error.kind, "invalid_input");
      assert.match(error.message, /^Invalid upload: /);
      assert.match(error.message, message);
    }
    assert.equal(fx.server.requests.length, 0);
  });

  test("the console's checks still hold for uploads: body limit (413), JSON type (415), origin (403), token (401)", async () => {
    await using fx = await turnFixture({ script: [mockReply.text("never")] });
    await using web = await startWebConsole(fx.bub, { maxBodyBytes: 4096 });
    const big = JSON.stringify({
      content: "big",
      media: [{ name: "big.pdf", data_url: `data:application/pdf;base64,${"A".repeat(8000)}` }],
    });
    const auth = { authorization: `Bearer ${web.token}` };
    const url = `${web.url}/api/sessions/lim/messages`;
    const tooLarge = await fetch(url, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: big,
    });
    assert.equal(tooLarge.status, 413);
    assert.match((await tooLarge.json()).error.message, /console_max_body_bytes/);
    const small = JSON.stringify({ content: "x", media: [{ name: "c.png", data_url: PNG_URL }] });
    const form = await fetch(url, {
      method: "POST",
      headers: { ...auth, "content-type": "multipart/form-data; boundary=x" },
      body: small,
    });
    assert.equal(form.status, 415);
    await form.body?.cancel();
    const foreign = await fetch(url, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json", origin: "https://evil.test" },
      body: small,
    });
    assert.equal(foreign.status, 403);
    await foreign.body?.cancel();
    const anonymous = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: small,
    });
    assert.equal(anonymous.status, 401);
    await anonymous.body?.cancel();
    assert.equal(fx.server.requests.length, 0);
  });
});
