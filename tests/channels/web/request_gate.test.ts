/**
 * The console's request gate against a real server, with requests written byte for byte: a
 * foreign `Host` (DNS rebinding) is 403 on every path; a state-changing request from another
 * origin (`Origin`, `Sec-Fetch-Site`) is 403 and runs nothing; a body that is not
 * `application/json` is 415; the token counts only as `Authorization: Bearer` (a cookie or a
 * query parameter carrying it is 401) and malformed tokens are 401, never 500; a body over the
 * limit is 413, announced or chunked, answered while it still streams; the limit is the
 * `console_max_body_bytes` setting.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { loadConsoleSettings } from "../../../src/builtin/settings.ts";
import { startWebConsole } from "../../../src/channels/web/console.ts";
import { consoleHosts } from "../../../src/channels/web/request_gate.ts";
import { BubError } from "../../../src/kernel/errors.ts";
import { mockReply } from "../../../src/testing/mock_llm_server.ts";
import { turnFixture } from "../../agent/_turn_fixture.ts";
import { rawRequest } from "./_raw_http.ts";

/** A temp dir removed on dispose, with the path of a file a `,touch` would create. */
/** A file to touch inside `workspace` (a web session's commands run sandboxed to it). */
function target(workspace: string): { file: string } & Disposable {
  const dir = mkdtempSync(join(workspace, "bub-gate-"));
  return { file: join(dir, "pwned"), [Symbol.dispose]: () => rmSync(dir, { recursive: true }) };
}

async function settle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 300));
}

function errorOf(body: string): { kind: string; message: string } {
  assert.doesNotMatch(body, /\n\s+at /, "no stack trace");
  return JSON.parse(body).error;
}

describe("web console request gate", () => {
  test("a Host the console does not listen on is 403 on every path; its own forms pass", async () => {
    await using fx = await turnFixture({ script: [mockReply.text("hi")] });
    await using web = await startWebConsole(fx.bub);
    const auth = { authorization: `Bearer ${web.token}` };
    for (const path of ["/", "/app.js", "/api/tapes"]) {
      const response = await rawRequest(web.port, "GET", path, {
        headers: { host: `rebound.example:${web.port}`, ...auth },
      });
      assert.equal(response.status, 403, path);
      assert.equal(errorOf(response.body).kind, "forbidden");
      assert.match(errorOf(response.body).message, /Host "rebound\.example:\d+"/);
    }
    for (const host of [`127.0.0.1:${web.port}`, `localhost:${web.port}`, `[::1]:${web.port}`]) {
      const response = await rawRequest(web.port, "GET", "/api/tapes", {
        headers: { host, ...auth },
      });
      assert.equal(response.status, 200, host);
    }
    const wrongPort = await rawRequest(web.port, "GET", "/", {
      headers: { host: `127.0.0.1:${web.port + 1}` },
    });
    assert.equal(wrongPort.status, 403);
    await using named = await startWebConsole(fx.bub, { allowedHosts: ["Bub.Test"] });
    const byName = await rawRequest(named.port, "GET", "/api/tapes", {
      headers: { host: `bub.test:${named.port}`, authorization: `Bearer ${named.token}` },
    });
    assert.equal(byName.status, 200, "a name given in allowedHosts is answered");
    assert.ok(consoleHosts("0.0.0.0", 8765).has("127.0.0.1:8765"));
    assert.ok(!consoleHosts("127.0.0.1", 80).has("evil.example"));
    assert.ok(consoleHosts("127.0.0.1", 80).has("localhost"));
  });

  test("state changes from another origin are 403 and run nothing; from its own origin they run", async () => {
    await using fx = await turnFixture({ script: [mockReply.text("hi")] });
    await using web = await startWebConsole(fx.bub);
    using tmp = target(fx.home);
    const host = `127.0.0.1:${web.port}`;
    const body = JSON.stringify({ content: `,touch ${tmp.file}` });
    const base = {
      host,
      authorization: `Bearer ${web.token}`,
      "content-type": "application/json",
    };
    const refused: [string, Record<string, string>][] = [
      ["another port", { origin: `http://127.0.0.1:${web.port + 1}` }],
      ["an opaque origin", { origin: "null" }],
      ["https", { origin: `https://${host}` }],
      ["a cross-site fetch", { "sec-fetch-site": "cross-site" }],
      ["a same-site fetch", { "sec-fetch-site": "same-site" }],
      ["own Origin but cross-site", { origin: `http://${host}`, "sec-fetch-site": "same-site" }],
    ];
    for (const [name, headers] of refused) {
      const response = await rawRequest(web.port, "POST", "/api/sessions/g/messages", {
        headers: { ...base, ...headers },
        body,
      });
      assert.equal(response.status, 403, name);
      assert.equal(errorOf(response.body).kind, "forbidden", name);
    }
    const cancel = await rawRequest(web.port, "POST", "/api/sessions/g/cancel", {
      headers: { ...base, origin: "http://evil.example" },
      body: "{}",
    });
    assert.equal(cancel.status, 403);
    await settle();
    assert.ok(!existsSync(tmp.file), "no refused request ran the command");
    const own = await rawRequest(web.port, "POST", "/api/sessions/g/messages", {
      headers: { ...base, origin: `http://${host}`, "sec-fetch-site": "same-origin" },
      body,
    });
    assert.equal(own.status, 202, own.body);
    for (let i = 0; i < 200 && !existsSync(tmp.file); i++) await settle();
    assert.ok(existsSync(tmp.file), "the console's own page runs commands");
  });

  test("a body that is not declared application/json is 415 and runs nothing", async () => {
    await using fx = await turnFixture({ script: [mockReply.text("hi")] });
    await using web = await startWebConsole(fx.bub);
    using tmp = target(fx.home);
    const body = JSON.stringify({ content: `,touch ${tmp.file}` });
    for (
      const type of ["text/plain", "application/x-www-form-urlencoded", "", "application/jsonx"]
    ) {
      const headers: Record<string, string> = {
        host: `127.0.0.1:${web.port}`,
        authorization: `Bearer ${web.token}`,
      };
      if (type) headers["content-type"] = type;
      const response = await rawRequest(web.port, "POST", "/api/sessions/t/messages", {
        headers,
        body,
      });
      assert.equal(response.status, 415, type);
      assert.equal(errorOf(response.body).kind, "unsupported_media_type");
    }
    await settle();
    assert.ok(!existsSync(tmp.file));
  });

  test("only a Bearer header is a credential; malformed tokens anywhere are 401, never 500", async () => {
    await using fx = await turnFixture({ script: [mockReply.text("hi")] });
    await using web = await startWebConsole(fx.bub);
    const host = `127.0.0.1:${web.port}`;
    const cases: [string, string, Record<string, string>][] = [
      ["the token as a cookie", "/api/tapes", { cookie: `bub_token=${web.token}` }],
      ["the token as a query", `/api/tapes?token=${web.token}`, {}],
      ["a malformed cookie", "/api/tapes", { cookie: "bub_token=%E0%A4%A; other=%" }],
      ["a malformed query", "/api/tapes?token=%E0%A4%A", {}],
      ["an empty bearer", "/api/tapes", { authorization: "Bearer" }],
      ["a bearer with spaces", "/api/tapes", { authorization: `Bearer ${web.token} x` }],
      ["a percent bearer", "/api/tapes", { authorization: "Bearer %E0%A4%A" }],
      ["basic", "/api/tapes", { authorization: `Basic ${btoa(`x:${web.token}`)}` }],
      ["latin-1 bytes", "/api/tapes", { authorization: "Bearer \xe9\xff" }],
      ["the event stream", `/api/sessions/a/events?token=${web.token}`, {}],
    ];
    for (const [name, path, headers] of cases) {
      const response = await rawRequest(web.port, "GET", path, { headers: { host, ...headers } });
      assert.equal(response.status, 401, name);
      assert.equal(errorOf(response.body).kind, "unauthorized", name);
    }
    const page = await rawRequest(web.port, "GET", "/?token=%E0%A4%A", {
      headers: { host, cookie: "bub_token=%E0" },
    });
    assert.equal(page.status, 200, "the page holds no data and is served without the token");
    assert.equal(page.headers["set-cookie"], undefined, "no cookie is ever set");
    const missing = await rawRequest(web.port, "GET", "/api/nope", {
      headers: { host, authorization: `Bearer ${web.token}` },
    });
    assert.equal(missing.status, 404);
    assert.equal(errorOf(missing.body).kind, "not_found");
  });

  test("a body over the limit is 413, announced or chunked, answered while it still streams", async () => {
    await using fx = await turnFixture({ script: [mockReply.text("small enough")] });
    await using web = await startWebConsole(fx.bub, { maxBodyBytes: 4096 });
    const headers = {
      host: `127.0.0.1:${web.port}`,
      authorization: `Bearer ${web.token}`,
      "content-type": "application/json",
    };
    const path = "/api/sessions/big/messages";
    const announced = await rawRequest(web.port, "POST", path, {
      headers,
      body: JSON.stringify({ content: "x".repeat(5000) }),
    });
    assert.equal(announced.status, 413);
    const error = errorOf(announced.body);
    assert.equal(error.kind, "invalid_input");
    assert.match(error.message, /at most 4096 bytes.*BUB_CONSOLE_MAX_BODY_BYTES/);
    // 64 KiB sent and the body never ends: only a check made while it streams can answer.
    const chunked = await rawRequest(web.port, "POST", path, {
      headers,
      endless: { chunkBytes: 1024, chunks: 64 },
    });
    assert.equal(chunked.status, 413);
    assert.match(errorOf(chunked.body).message, /at most 4096 bytes/);
    const fits = await rawRequest(web.port, "POST", path, {
      headers,
      body: JSON.stringify({ content: "x".repeat(3000) }),
    });
    assert.equal(fits.status, 202, fits.body);
    const notJson = await rawRequest(web.port, "POST", path, { headers, body: "{nope" });
    assert.equal(notJson.status, 400);
    assert.equal(errorOf(notJson.body).kind, "invalid_input");
  });

  test("the limit is the console_max_body_bytes setting (BUB_CONSOLE_MAX_BODY_BYTES), 1 MiB by default", () => {
    assert.equal(loadConsoleSettings().console_max_body_bytes, 1024 * 1024);
    const env = { BUB_CONSOLE_MAX_BODY_BYTES: "2048" };
    assert.equal(loadConsoleSettings({ env }).console_max_body_bytes, 2048);
    const config = { console_max_body_bytes: 9000 };
    assert.equal(loadConsoleSettings({ config }).console_max_body_bytes, 9000);
    assert.throws(
      () => loadConsoleSettings({ env: { BUB_CONSOLE_MAX_BODY_BYTES: "0" } }),
      (e: unknown) => BubError.isInstance(e) && /console_max_body_bytes/.test(String(e)),
    );
  });
});
