/**
 * Approvals in the web console (headless Chromium, skipped with a message without it): a call
 * held by an `approvals:` rule shows a tool card waiting for approval with Approve / Always /
 * Deny buttons; Approve posts `,approve <id>`, the tool runs once and the answer appears; Deny on
 * the next one gives the model the denial.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { startWebConsole } from "../../../src/channels/web/console.ts";
import { definePlugin } from "../../../src/kernel/plugin.ts";
import { mockReply } from "../../../src/testing/mock_llm_server.ts";
import { defineTool } from "../../../src/tools/tool.ts";
import { turnFixture } from "../../agent/_turn_fixture.ts";
import { CHROMIUM, launchChromium } from "./_chromium.ts";
import type { Browser, Page } from "puppeteer-core";

describe("web console approval buttons", () => {
  if (!CHROMIUM) {
    console.log("SKIPPED: web console approval test (no chromium; apt-get install chromium)");
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

  test("Approve on the held call's card runs the tool once; Deny gives the model the denial", async () => {
    let runs = 0;
    const deploy = defineTool({
      name: "ops.deploy",
      parameters: z.object({ target: z.string() }),
      handler: ({ target }) => {
        runs++;
        return `deployed to ${target}`;
      },
    });
    await using fx = await turnFixture({
      script: [
        mockReply.toolCall("ops_deploy", { target: "prod" }, { id: "d1" }),
        mockReply.text("Deployed."),
        mockReply.toolCall("ops_deploy", { target: "prod" }, { id: "d2" }),
        mockReply.text("Not deployed."),
      ],
      env: { BUB_APPROVALS: JSON.stringify([{ tool: "ops.*", reason: "deploys need a yes" }]) },
      plugins: [definePlugin({ name: "ops", tools: [deploy] })],
    });
    await using web = await startWebConsole(fx.bub);
    const page = await browser.newPage();
    try {
      await page.goto(web.openUrl, { waitUntil: "load" });
      await page.waitForSelector("#input");
      await ask(page, "deploy to prod");
      const card = await page.$eval("details.tool.waiting", (node) => ({
        summary: node.querySelector("summary")!.textContent,
        buttons: [...node.querySelectorAll(".approval button")].map((b) => b.textContent),
      }));
      assert.equal(card.summary, "tool ops.deploy waits for approval");
      assert.deepEqual(card.buttons, ["Approve", "Always", "Deny"]);
      assert.equal(runs, 0);
      await page.click("details.tool.waiting .approval-approve");
      await waitForText(page, "Deployed.");
      assert.equal(runs, 1);
      assert.ok(
        await page.$eval(
          "details.tool.waiting .approval-approve",
          (b) => (b as HTMLButtonElement).disabled,
        ),
        "the pressed card's buttons are disabled",
      );
      await ask(page, "deploy again");
      const bars = await page.$$(".approval");
      assert.equal(bars.length, 2);
      await page.evaluate(() => {
        const bars = document.querySelectorAll(".approval");
        (bars[bars.length - 1]!.querySelector(".approval-deny") as HTMLButtonElement).click();
      });
      await waitForText(page, "Not deployed.");
      assert.equal(runs, 1);
      const messages = fx.bodies()[3]!.messages as { role: string; content: unknown }[];
      assert.match(String(messages.at(-1)!.content), /^denied by /);
    } finally {
      await page.close();
    }
  });
});

/** Sends `text` and waits until its turn shows approval buttons. */
async function ask(page: Page, text: string): Promise<void> {
  const before = await page.$$eval(".approval", (nodes) => nodes.length);
  await page.type("#input", text);
  await page.keyboard.press("Enter");
  await page.waitForFunction(
    (count) => document.querySelectorAll(".approval").length > count,
    { timeout: 20_000 },
    before,
  );
}

async function waitForText(page: Page, text: string): Promise<void> {
  await page.waitForFunction(
    (needle) =>
      [...document.querySelectorAll(".msg.bot")].some((n) => n.textContent?.includes(needle)),
    { timeout: 20_000 },
    text,
  );
}
