/**
 * The web console in headless Chromium (Debian's `chromium`, driven by `puppeteer-core`; skipped
 * with a message when it is absent): open it with the token, send a message (Shift+Enter makes a
 * newline, Enter sends), see the streamed answer rendered as Markdown, a tool card and the turn's
 * usage, with the HTML in the answer and in the tool result rendered as text; open the tape view
 * and see the handoff anchor, the turn's fork and merge marks and the tool call paired with its
 * spilled result, load the spill, search; a request without the token is refused; Esc stops a
 * running turn. One browser serves every test of the file. Outside CI it saves screenshots under
 * bench/results/.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { definePlugin } from "../../../src/kernel/plugin.ts";
import { defineTool } from "../../../src/tools/tool.ts";
import { startWebConsole } from "../../../src/channels/web/console.ts";
import { turnFixture } from "../../agent/_turn_fixture.ts";
import { ROOT } from "../../cli/_spawn.ts";
import { CHROMIUM, launchChromium } from "./_chromium.ts";
import type { Browser } from "puppeteer-core";

const HTML = `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">`;
const ANSWER = "The **answer** is *formatted*:\n\n- one\n- `two`\n\n```js\nlet x = 1;\n```\n\n" +
  `${HTML} [bad](javascript:alert(1)) and [docs](https://example.com/docs).`;
/** The answer streamed in small pieces, so partial Markdown is rendered along the way. */
const ANSWER_CHUNKS = ANSWER.match(/[\s\S]{1,7}/g)!;

const evil = defineTool({ name: "evil", parameters: { type: "object" }, handler: () => HTML });
const boom = defineTool({
  name: "boom",
  parameters: { type: "object" },
  handler: () => {
    throw new Error(`boom ${HTML}`);
  },
});

describe("web console in headless Chromium", () => {
  if (!CHROMIUM) {
    console.log("SKIPPED: web console browser test (no chromium; apt-get install chromium)");
    test.skip("needs chromium", () => {});
    return;
  }
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });
  test("chat streams Markdown and a tool card with usage; the tape view pairs the call, marks the anchor and loads the spill", async () => {
    await using fx = await turnFixture({
      script: [
        { toolCalls: [{ name: "evil", id: "e1" }, { name: "boom", id: "b1" }] },
        { text: ANSWER_CHUNKS },
      ],
      plugins: [definePlugin({ name: "evil", tools: [evil, boom] })],
      env: { BUB_SPILL_THRESHOLD: "10" },
    });
    await using web = await startWebConsole(fx.bub);
    const page = await browser.newPage();
    try {
      await page.setViewport({ width: 1100, height: 700 });
      const dialogs: string[] = [];
      page.on("dialog", (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      await page.goto(web.openUrl, { waitUntil: "load" });
      assert.ok(!page.url().includes(web.token), "the token is dropped from the address bar");
      assert.equal(new URL(page.url()).hash, "");
      await page.waitForSelector("#input");
      // Shift+Enter makes a newline and sends nothing; Enter sends.
      await page.type("#input", "run the");
      await page.keyboard.down("Shift");
      await page.keyboard.press("Enter");
      await page.keyboard.up("Shift");
      await page.type("#input", "evil tool");
      assert.equal(
        await page.$eval("#input", (n) => (n as HTMLTextAreaElement).value),
        "run the\nevil tool",
      );
      assert.equal(await page.$$eval(".msg.user", (n) => n.length), 0);
      await page.keyboard.press("Enter");
      await page.waitForFunction(() => document.querySelector("#log .usage") !== null, {
        timeout: 20_000,
      });
      assert.equal(await page.$eval(".msg.user", (n) => n.textContent), "run the\nevil tool");
      assert.equal(await page.$eval("#input", (n) => (n as HTMLTextAreaElement).value), "");
      const answer = await page.$eval(".msg.bot", (node) => ({
        text: node.textContent,
        strong: [...node.querySelectorAll("strong")].map((n) => n.textContent),
        em: [...node.querySelectorAll("em")].map((n) => n.textContent),
        items: [...node.querySelectorAll("ul > li")].map((n) => n.textContent),
        code: [...node.querySelectorAll("p code, li code")].map((n) => n.textContent),
        block: node.querySelector("pre.code code")?.textContent,
        links: [...node.querySelectorAll("a")].map((n) => [n.textContent, n.getAttribute("href")]),
      }));
      assert.deepEqual(answer.strong, ["answer"]);
      assert.deepEqual(answer.em, ["formatted"]);
      assert.deepEqual(answer.items, ["one", "two"]);
      assert.deepEqual(answer.code, ["two"]);
      assert.equal(answer.block, "let x = 1;");
      assert.deepEqual(answer.links, [["docs", "https://example.com/docs"]]);
      assert.ok(answer.text?.includes(HTML), "the HTML in the Markdown is shown as text");
      assert.ok(answer.text?.includes("[bad](javascript:alert(1))"), "no javascript: link");
      const cards = await page.$$eval("details.tool", (nodes) =>
        nodes.map((node) => ({
          summary: node.querySelector("summary")!.textContent,
          failed: node.classList.contains("failed"),
          text: node.textContent,
          error: node.querySelector("pre.err")?.textContent,
        })));
      assert.equal(cards.length, 2);
      const [card, failed] = cards as [(typeof cards)[0], (typeof cards)[0]];
      assert.match(card.summary ?? "", /^tool evil ok \(\d+ ms\)$/);
      assert.ok(card.text?.includes(HTML), "the HTML result is shown as text");
      assert.match(failed.summary ?? "", /^tool boom failed \(\d+ ms\)$/);
      assert.ok(failed.failed && failed.error?.includes(`boom ${HTML}`), JSON.stringify(failed));
      const usage = await page.$eval("#log .usage", (node) => node.textContent);
      assert.match(
        usage ?? "",
        /^usage: 30 tokens · 20 in · 10 out · 2 model calls · 2 steps/,
      );
      const injected = await page.evaluate(() => ({
        images: document.querySelectorAll("#log img, #log script").length,
        pwned: (window as unknown as { __pwned?: number }).__pwned ?? 0,
      }));
      assert.deepEqual(injected, { images: 0, pwned: 0 });
      const screenshots = !process.env.CI;
      const dir = join(ROOT, "bench", "results");
      if (screenshots) {
        mkdirSync(dir, { recursive: true });
        await page.evaluate(() =>
          document.querySelectorAll("details.tool").forEach((n) => n.setAttribute("open", ""))
        );
        await page.screenshot({ path: join(dir, "web_console_chat.png") });
      }
      await page.waitForFunction(() => document.querySelectorAll("#tapes li").length > 0);
      const listed = await page.$eval("#tapes li", (node) => node.firstChild?.textContent);
      assert.equal(listed, "web:console", "the tape list shows the session id");
      await page.click("#tapes li");
      await page.waitForFunction(() => document.querySelectorAll("#entries li").length > 0);
      const tape = await page.$$eval("#entries > li", (items) =>
        items.map((item) => ({
          cls: item.className,
          text: (item.querySelector("summary") ?? item.querySelector(".mark-title"))?.textContent ??
            "",
        })));
      const shown = JSON.stringify(tape);
      assert.ok(tape.some((item) => /\banchor\b/.test(item.cls)), shown);
      assert.ok(tape.some((item) => /^handoff session\/start/.test(item.text)), shown);
      assert.ok(tape.some((item) => /\bfork\b/.test(item.cls)), shown);
      assert.ok(tape.some((item) => /^turn merged back/.test(item.text)), shown);
      const tools = tape.filter((item) => /tool-pair/.test(item.cls));
      assert.equal(tools.length, 2, shown);
      assert.match(tools[0]!.text, /^tool evil · spilled · e1 · #\d+→#\d+ · /);
      assert.match(tools[1]!.text, /^tool boom · spilled · b1 · #\d+→#\d+ · /);
      assert.ok(!tape.some((item) => /tool_result/.test(item.text)), "the result is in the card");
      const visible = await page.evaluate(() =>
        ["chat", "tape"].map((id) =>
          document.getElementById(id)!.getBoundingClientRect().height > 0
        )
      );
      assert.deepEqual(visible, [false, true], "the tape view replaces the chat");
      await page.evaluate(() =>
        document.querySelector("#entries details.tool")!.setAttribute("open", "")
      );
      await page.click("#entries .spill button");
      await page.waitForSelector("#entries pre.spilled");
      assert.equal(await page.$eval("#entries pre.spilled", (n) => n.textContent), HTML);
      if (screenshots) await page.screenshot({ path: join(dir, "web_console_tape.png") });
      await page.type("#q", "evil");
      await page.click("#search button");
      await page.waitForFunction(() =>
        /matching/.test(document.getElementById("tape-count")!.textContent ?? "")
      );
      assert.ok(
        await page.$$eval("#entries > li", (items) => items.length > 0 && items.length < 10),
        "search narrows the timeline",
      );
      const refused = await page.evaluate(async () =>
        (await fetch("/api/tapes", { credentials: "omit" })).status
      );
      assert.equal(refused, 401);
      assert.deepEqual(dialogs, []);
      assert.equal(
        await page.evaluate(() => document.querySelectorAll("img, #entries script").length),
        0,
      );
      assert.equal(
        await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned ?? 0),
        0,
      );
    } finally {
      await page.close();
    }
  });

  test("two turns with the same call id keep two cards; Stop marks the running tool stopped; a phone-width dark page keeps Send and Stop in view", async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const slow = defineTool({
      name: "slow",
      parameters: { type: "object" },
      handler: (_args, context) =>
        new Promise((_resolve, reject) => {
          started();
          const { signal } = context;
          signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
        }),
      context: true,
    });
    await using fx = await turnFixture({
      script: [
        { toolCalls: [{ name: "evil", id: "call_1" }] },
        { text: ["first"] },
        { toolCalls: [{ name: "boom", id: "call_1" }] },
        { text: ["second"] },
        { toolCalls: [{ name: "slow", id: "call_1" }] },
      ],
      plugins: [definePlugin({ name: "cards", tools: [evil, boom, slow] })],
    });
    await using web = await startWebConsole(fx.bub);
    const page = await browser.newPage();
    try {
      await page.setViewport({ width: 390, height: 740 });
      await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "dark" }]);
      await page.goto(web.openUrl, { waitUntil: "load" });
      await page.waitForSelector("#input");
      const usages = () => page.$$eval("#log .usage", (n) => n.length);
      for (const [i, text] of ["run evil", "run boom"].entries()) {
        await page.type("#input", text);
        await page.keyboard.press("Enter");
        await page.waitForFunction(
          (n) => document.querySelectorAll("#log .usage").length === n,
          { timeout: 20_000 },
          i + 1,
        );
      }
      assert.equal(await usages(), 2);
      await page.type("#input", "run slow");
      await page.keyboard.press("Enter");
      await running;
      await page.waitForFunction(() => document.querySelectorAll("details.tool").length === 3);
      await page.click("#stop");
      await page.waitForFunction(
        () => [...document.querySelectorAll(".msg.error")].some((n) => n.textContent === "stopped"),
        { timeout: 10_000 },
      );
      const cards = await page.$$eval("details.tool", (nodes) =>
        nodes.map((node) => ({
          summary: node.querySelector("summary")!.textContent ?? "",
          cls: node.className,
        })));
      assert.equal(cards.length, 3, JSON.stringify(cards));
      assert.match(cards[0]!.summary, /^tool evil ok \(\d+ ms\)$/);
      assert.match(cards[1]!.summary, /^tool boom failed \(\d+ ms\)$/);
      assert.equal(cards[2]!.summary, "tool slow stopped");
      assert.match(cards[2]!.cls, /\bstopped\b/);
      assert.doesNotMatch(cards[2]!.cls, /\brunning\b/);
      const layout = await page.evaluate(() => {
        const box = (id: string) => document.getElementById(id)!.getBoundingClientRect();
        const inView = (r: DOMRect) =>
          r.left >= 0 && r.right <= innerWidth && r.top >= 0 && r.bottom <= innerHeight &&
          r.width > 0;
        return {
          send: inView(box("send")),
          stop: inView(box("stop")),
          tapesHidden: box("tapes").right <= 0,
          background: getComputedStyle(document.body).backgroundColor,
        };
      });
      assert.deepEqual(
        { send: layout.send, stop: layout.stop, tapesHidden: layout.tapesHidden },
        { send: true, stop: true, tapesHidden: true },
      );
      assert.equal(layout.background, "rgb(27, 28, 30)", "dark mode follows the system");
      await page.click("#toggle-tapes");
      await page.waitForFunction(() =>
        document.getElementById("tapes")!.getBoundingClientRect().left >= 0
      );
      const icon = await page.evaluate(async () => {
        const response = await fetch("/favicon.svg", { credentials: "omit" });
        return [response.status, response.headers.get("content-type")];
      });
      assert.deepEqual(icon, [200, "image/svg+xml"]);
      if (!process.env.CI) {
        const dir = join(ROOT, "bench", "results");
        mkdirSync(dir, { recursive: true });
        await page.screenshot({ path: join(dir, "web_console_phone.png") });
      }
    } finally {
      await page.close();
    }
  });

  test("a reload, and a restarted console, show the whole conversation once, and the tape by its name", async () => {
    await using fx = await turnFixture({
      script: [
        { toolCalls: [{ name: "evil", id: "call_1" }] },
        { text: ["first answer"] },
        { text: ["second answer"] },
      ],
      plugins: [definePlugin({ name: "evil", tools: [evil] })],
    });
    const page = await browser.newPage();
    try {
      {
        await using web = await startWebConsole(fx.bub);
        await page.goto(web.openUrl, { waitUntil: "load" });
        await page.waitForSelector("#input");
        for (const [i, text] of ["run evil", "say more"].entries()) {
          await page.type("#input", text);
          await page.keyboard.press("Enter");
          await page.waitForFunction(
            (n) => document.querySelectorAll("#log .usage").length === n,
            { timeout: 20_000 },
            i + 1,
          );
        }
        await page.reload({ waitUntil: "load" });
        await page.waitForFunction(() => document.querySelectorAll("#log .msg.bot").length === 2);
        const shown = await page.$eval("#log", (n) => (n as HTMLElement).innerText);
        for (const text of ["run evil", "say more", "first answer", "second answer"]) {
          assert.equal(shown.split(text).length - 1, 1, `${text} once in:\n${shown}`);
        }
        assert.equal(await page.$$eval("#log details.tool", (n) => n.length), 1, shown);
      }
      // A new console on the same framework (the old one is gone): same conversation, and the
      // tape list names the console's own chat instead of showing its hash.
      await using again = await startWebConsole(fx.bub);
      await page.goto(again.openUrl, { waitUntil: "load" });
      await page.waitForFunction(() => document.querySelectorAll("#log .msg.bot").length === 2);
      await page.waitForFunction(() => document.querySelectorAll("#tapes li").length > 0);
      const listed = await page.$$eval("#tapes li", (items) => items.map((n) => n.textContent));
      assert.ok(listed.some((text) => text?.startsWith("web:consolerun evil")), listed.join("|"));
    } finally {
      await page.close();
    }
  });

  test("Esc stops the running turn", async () => {
    await using fx = await turnFixture({
      script: [{ text: "slow answer that takes long to end".split(" "), delayMs: 1_500 }],
    });
    await using web = await startWebConsole(fx.bub);
    const page = await browser.newPage();
    try {
      await page.goto(web.openUrl, { waitUntil: "load" });
      await page.waitForSelector("#input");
      await page.type("#input", "talk slowly");
      await page.keyboard.press("Enter");
      await page.waitForFunction(() => document.querySelector(".msg.user") !== null);
      await page.waitForFunction(() => document.querySelector(".msg.bot") !== null);
      await page.keyboard.press("Escape");
      await page.waitForFunction(
        () => [...document.querySelectorAll(".msg.error")].some((n) => n.textContent === "stopped"),
        { timeout: 10_000 },
      );
    } finally {
      await page.close();
    }
  });
});
