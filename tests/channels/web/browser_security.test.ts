/**
 * The console's credential against other local origins, in headless Chromium with real servers on
 * other ports of 127.0.0.1 (skipped with a message without Chromium). While the user is logged in,
 * an attacker page auto-submits a `text/plain` form and a `no-cors` fetch of `,touch <file>` to the
 * console: both reach it, are refused, and create nothing, while the same command typed in the
 * console runs. After logging in, the browser visits another local server: it receives no
 * credential (no cookie, header, URL or referrer carries the token), its page cannot read it, and
 * the cookie it plants does not lock the user out. A tab opened without the token says so.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, HTTPResponse } from "puppeteer-core";
import { startWebConsole } from "../../../src/channels/web/console.ts";
import { serveFetch } from "../../../src/channels/web/serve.ts";
import { mockReply } from "../../../src/testing/mock_llm_server.ts";
import { turnFixture } from "../../agent/_turn_fixture.ts";
import { CHROMIUM, launchChromium } from "./_chromium.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An HTML page that posts `,touch` commands to `target` as soon as it loads. */
function attackPage(target: string, formFile: string, fetchFile: string): string {
  // text/plain sends `name=value`: {"content":",touch <file>","x":"="}, valid JSON.
  const name = `{"content":",touch ${formFile}","x":"`.replaceAll('"', "&quot;");
  return `<!doctype html><html><body><iframe name="sink"></iframe>
<form id="f" method="POST" enctype="text/plain" action="${target}" target="sink">
<input name="${name}" value='"}'></form>
<script>
window.sent = 0;
fetch(${JSON.stringify(target)}, {
  method: "POST", mode: "no-cors", credentials: "include",
  headers: { "content-type": "text/plain" },
  body: JSON.stringify({ content: ",touch ${fetchFile}" }),
}).finally(() => window.sent++);
document.getElementById("f").submit();
</script></body></html>`;
}

describe("web console credential in headless Chromium", () => {
  if (!CHROMIUM) {
    console.log(
      "SKIPPED: web console browser security test (no chromium; apt-get install chromium)",
    );
    test.skip("needs chromium", () => {});
    return;
  }
  let browser: Browser;
  let dir: string;
  before(async () => {
    browser = await launchChromium();
    dir = mkdtempSync(join(tmpdir(), "bub-csrf-"));
  });
  after(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a page on another local port posting a form and a no-cors fetch runs nothing", async () => {
    await using fx = await turnFixture({ script: [mockReply.text("unused")] });
    await using web = await startWebConsole(fx.bub);
    const target = `${web.url}/api/sessions/console/messages`;
    // In the workspace: a web session's commands run sandboxed to it.
    const [formFile, fetchFile, ownFile] = ["form", "fetch", "own"].map((n) => join(fx.home, n));
    const attacker = await serveFetch(
      () =>
        new Response(attackPage(target, formFile!, fetchFile!), {
          headers: { "content-type": "text/html; charset=utf-8" },
        }),
      "127.0.0.1",
      0,
    );
    const user = await browser.newPage();
    const evil = await browser.newPage();
    try {
      await user.goto(web.openUrl, { waitUntil: "load" });
      await user.waitForFunction(() => sessionStorage.getItem("bub_token") !== null);
      const answers: number[] = [];
      evil.on("response", (response: HTTPResponse) => {
        if (response.url() === target) answers.push(response.status());
      });
      await evil.goto(`http://127.0.0.1:${attacker.port}/`, { waitUntil: "load" });
      await evil.waitForFunction(() => (window as unknown as { sent: number }).sent === 1);
      for (let i = 0; i < 100 && answers.length < 2; i++) await sleep(50);
      assert.equal(answers.length, 2, "both the form and the fetch reached the console");
      assert.ok(answers.every((status) => status === 401 || status === 403), String(answers));
      await sleep(1000);
      assert.ok(!existsSync(formFile!), "the form ran nothing");
      assert.ok(!existsSync(fetchFile!), "the fetch ran nothing");
      // The same command from the console's own page runs: the attack had what it needed to work.
      await user.bringToFront();
      await user.type("#input", `,touch ${ownFile}`);
      await user.keyboard.press("Enter");
      for (let i = 0; i < 200 && !existsSync(ownFile!); i++) await sleep(50);
      assert.ok(existsSync(ownFile!), "the console's own page ran the command");
    } finally {
      await evil.close();
      await user.close();
      await attacker.close();
    }
  });

  test("after login another local server receives no credential and cannot lock the user out", async () => {
    await using fx = await turnFixture({ script: [mockReply.text("still logged in")] });
    await using web = await startWebConsole(fx.bub);
    const seen: { url: string; headers: Record<string, string> }[] = [];
    const other = await serveFetch(
      (request) => {
        seen.push({ url: request.url, headers: Object.fromEntries(request.headers) });
        return new Response("<!doctype html><title>dev server</title><p>hello</p>", {
          headers: [
            ["content-type", "text/html"],
            ["set-cookie", "bub_token=planted; Path=/"],
            ["set-cookie", "session=1; Path=/"],
          ],
        });
      },
      "127.0.0.1",
      0,
    );
    const page = await browser.newPage();
    try {
      await page.goto(web.openUrl, { waitUntil: "load" });
      await page.waitForFunction(() => sessionStorage.getItem("bub_token") !== null);
      assert.ok(!page.url().includes(web.token), "the address bar no longer holds the token");
      for (const host of ["127.0.0.1", "localhost"]) {
        await page.goto(`http://${host}:${other.port}/after-login`, { waitUntil: "load" });
        const readable = await page.evaluate(() =>
          JSON.stringify([document.cookie, { ...sessionStorage }, { ...localStorage }])
        );
        assert.ok(!readable.includes(web.token), `the page at ${host} cannot read it: ${readable}`);
      }
      await page.goto(`http://127.0.0.1:${other.port}/again`, { waitUntil: "load" });
      assert.ok(seen.length >= 3, JSON.stringify(seen));
      const received = JSON.stringify(seen);
      assert.ok(!received.includes(web.token), `the other server got the token: ${received}`);
      // Back in the console (the planted bub_token cookie is sent there now): still logged in.
      await page.goto(`${web.url}/`, { waitUntil: "load" });
      await page.waitForSelector("#input");
      await page.type("#input", "are you there");
      await page.keyboard.press("Enter");
      await page.waitForFunction(
        () => document.querySelector(".msg.bot")?.textContent === "still logged in",
        { timeout: 20_000 },
      );
      const fresh = await browser.newPage();
      try {
        await fresh.goto(`${web.url}/`, { waitUntil: "load" });
        await fresh.waitForSelector(".msg.error");
        assert.match(
          await fresh.$eval(".msg.error", (node) => node.textContent ?? ""),
          /No access token/,
        );
      } finally {
        await fresh.close();
      }
    } finally {
      await page.close();
      await other.close();
    }
  });
});
