/**
 * Attaching files in the web console, in headless Chromium (skipped with a message when
 * Chromium is absent): a PDF chosen with the Attach button, an image pasted into the message
 * box and a voice note dropped on the composer are listed as chips, sent with the message as
 * data URLs, shown under the user's message, and reach the model as a file part, an image_url
 * part and an input_audio part with the files' exact bytes.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startWebConsole } from "../../../src/channels/web/console.ts";
import { mockReply } from "../../../src/testing/mock_llm_server.ts";
import { turnFixture } from "../../agent/_turn_fixture.ts";
import { base64, oggOpusFile, pdfFile, PNG_BASE64 } from "../../agent/_media_files.ts";
import { CHROMIUM, launchChromium } from "./_chromium.ts";
import type { Browser } from "puppeteer-core";

type Part = Record<string, unknown>;

describe("web console attachments in headless Chromium", () => {
  if (!CHROMIUM) {
    console.log("SKIPPED: web console upload browser test (no chromium; apt-get install chromium)");
    test.skip("needs chromium", () => {});
    return;
  }
  let browser: Browser;
  let dir: string;
  before(async () => {
    browser = await launchChromium();
    dir = mkdtempSync(join(tmpdir(), "bub-upload-"));
  });
  after(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a chosen PDF, a pasted image and a dropped voice note reach the model as sent", async () => {
    await using fx = await turnFixture({ script: [mockReply.text("three files")] });
    await using web = await startWebConsole(fx.bub);
    const pdf = pdfFile();
    const pdfPath = join(dir, "report.pdf");
    writeFileSync(pdfPath, pdf);
    const ogg = base64(oggOpusFile(3));
    const page = await browser.newPage();
    try {
      await page.goto(web.openUrl, { waitUntil: "load" });
      await page.waitForSelector("#input");
      assert.equal(await page.$eval("#attachments", (n) => (n as HTMLElement).hidden), true);
      const chooser = await page.$("#files");
      await (chooser as unknown as { uploadFile(path: string): Promise<void> }).uploadFile(
        pdfPath,
      );
      await page.waitForFunction(() =>
        document.querySelectorAll("#attachments .chip").length === 1
      );
      await page.evaluate((png: string) => {
        const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
        const data = new DataTransfer();
        data.items.add(new File([bytes], "pasted.png", { type: "image/png" }));
        document.getElementById("input")!.dispatchEvent(
          new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }),
        );
      }, PNG_BASE64);
      await page.evaluate((voice: string) => {
        const bytes = Uint8Array.from(atob(voice), (c) => c.charCodeAt(0));
        const data = new DataTransfer();
        data.items.add(new File([bytes], "voice.ogg", { type: "audio/ogg" }));
        document.getElementById("composer")!.dispatchEvent(
          new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }),
        );
      }, ogg);
      await page.waitForFunction(() =>
        document.querySelectorAll("#attachments .chip").length === 3
      );
      const chips = await page.$$eval(
        "#attachments .chip",
        (nodes) => nodes.map((n) => n.firstChild?.textContent),
      );
      assert.deepEqual(chips, [
        `report.pdf (${pdf.byteLength} B)`,
        "pasted.png (70 B)",
        `voice.ogg (${atob(ogg).length} B)`,
      ]);
      await page.type("#input", "what are these?");
      await page.keyboard.press("Enter");
      await page.waitForFunction(() => document.querySelector("#log .usage") !== null, {
        timeout: 20_000,
      });
      assert.equal(
        await page.$eval(".msg.user", (n) => n.textContent),
        "what are these?\n\u{1f4ce} report.pdf (application/pdf)\n\u{1f4ce} pasted.png (image/png)" +
          "\n\u{1f4ce} voice.ogg (audio/ogg)",
      );
      assert.equal(await page.$$eval("#attachments .chip", (n) => n.length), 0);
      const messages = fx.bodies()[0]!.messages as Array<{ role: string; content: unknown }>;
      const parts = messages.findLast((m) => m.role === "user")!.content as Part[];
      assert.deepEqual(parts.slice(1), [
        {
          type: "file",
          file: {
            file_data: `data:application/pdf;base64,${base64(pdf)}`,
            filename: "report.pdf",
          },
        },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
        { type: "input_audio", input_audio: { data: ogg, format: "ogg" } },
      ]);
    } finally {
      await page.close();
    }
  });
});
