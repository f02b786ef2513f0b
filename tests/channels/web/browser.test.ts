/**
 * The web console in headless Chromium (Debian's `chromium`, driven by `puppeteer-core`; skipped
 * with a message when it is absent): open it with the token, send a message, see the streamed
 * answer and a tool card whose HTML result renders as text, open the tape view and see the anchor
 * and the tool call; a request without the token is refused. Outside CI it saves screenshots
 * under bench/results/.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { definePlugin } from "../../../src/kernel/plugin.ts";
import { mockReply } from "../../../src/testing/mock_llm_server.ts";
import { defineTool } from "../../../src/tools/tool.ts";
import { startWebConsole } from "../../../src/channels/web/console.ts";
import { turnFixture } from "../../agent/_turn_fixture.ts";
import { ROOT } from "../../cli/_spawn.ts";

const HTML = `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">`;
const CHROMIUM = [process.env.BUB_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"]
  .find((path) => path && existsSync(path));

const evil = defineTool({ name: "evil", parameters: { type: "object" }, handler: () => HTML });

describe("web console in headless Chromium", () => {
  if (!CHROMIUM) {
    console.log("SKIPPED: web console browser test (no chromium; apt-get install chromium)");
    test.skip("needs chromium", () => {});
    return;
  }
  test("chat streams the answer and a tool card, the tape view shows the anchor and the tool call", async () => {
    const puppeteer = (await import("puppeteer-core")).default;
    await using fx = await turnFixture({
      script: [mockReply.toolCall("evil", {}, { id: "e1" }), {
        text: ["The ", "answer ", "is ", "here."],
      }],
      plugins: [definePlugin({ name: "evil", tools: [evil] })],
    });
    await using web = await startWebConsole(fx.bub);
    const browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
    });
    try {
      const page = await browser.newPage();
      await page.setViewport({ width: 1100, height: 700 });
      const dialogs: string[] = [];
      page.on("dialog", (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      await page.goto(web.openUrl, { waitUntil: "load" });
      assert.equal(new URL(page.url()).search, "", "the token is dropped from the address bar");
      await page.waitForSelector("#input");
      await page.type("#input", "run the evil tool");
      await page.keyboard.press("Enter");
      await page.waitForFunction(
        () =>
          [...document.querySelectorAll(".msg.bot")].some((n) =>
            n.textContent === "The answer is here."
          ),
        { timeout: 20_000 },
      );
      const card = await page.$eval("details.tool", (node) => ({
        summary: node.querySelector("summary")!.textContent,
        text: node.textContent,
      }));
      assert.match(card.summary ?? "", /^tool evil ok \(\d+ ms\)$/);
      assert.ok(card.text?.includes(HTML), "the HTML result is shown as text");
      const injected = await page.evaluate(() => ({
        images: document.querySelectorAll("#log img, #log script").length,
        pwned: (window as unknown as { __pwned?: number }).__pwned ?? 0,
      }));
      assert.deepEqual(injected, { images: 0, pwned: 0 });
      const screenshots = !process.env.CI;
      const dir = join(ROOT, "bench", "results");
      if (screenshots) {
        mkdirSync(dir, { recursive: true });
        await page.evaluate(() => document.querySelector("details.tool")!.setAttribute("open", ""));
        await page.screenshot({ path: join(dir, "web_console_chat.png") });
      }
      await page.waitForFunction(() => document.querySelectorAll("#tapes li").length > 0);
      await page.click("#tapes li");
      await page.waitForFunction(() => document.querySelectorAll("#entries li").length > 0);
      const tape = await page.$$eval("#entries li", (items) =>
        items.map((item) => ({
          anchor: item.classList.contains("anchor"),
          summary: item.querySelector("summary")?.textContent ?? "",
        })));
      assert.ok(tape.some((entry) => entry.anchor), JSON.stringify(tape));
      assert.ok(tape.some((entry) => / tool_call evil /.test(entry.summary)), JSON.stringify(tape));
      assert.ok(
        tape.some((entry) => / tool_result \(1\) /.test(entry.summary)),
        JSON.stringify(tape),
      );
      const visible = await page.evaluate(() =>
        ["chat", "tape"].map((id) =>
          document.getElementById(id)!.getBoundingClientRect().height > 0
        )
      );
      assert.deepEqual(visible, [false, true], "the tape view replaces the chat");
      if (screenshots) await page.screenshot({ path: join(dir, "web_console_tape.png") });
      const refused = await page.evaluate(async () =>
        (await fetch("/api/tapes", { credentials: "omit" })).status
      );
      assert.equal(refused, 401);
      assert.deepEqual(dialogs, []);
      assert.equal(await page.evaluate(() => document.querySelectorAll("img").length), 0);
    } finally {
      await browser.close();
    }
  });
});
