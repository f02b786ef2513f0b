/**
 * `bub web` as a real child process: it prints one URL line with the token, refuses requests
 * without it, answers a message through the mock model, refuses a body over
 * `BUB_CONSOLE_MAX_BODY_BYTES`, warns when bound beyond loopback, and
 * exits 0 on SIGTERM and SIGINT; `bub gateway --enable-channel web` serves it too.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { MockLlmServer, mockReply } from "../../../src/testing/mock_llm_server.ts";
import {
  BIN,
  childEnv,
  cleanupStack,
  runCli,
  runtimeCommand,
  startChild,
  tempDirs,
} from "../../cli/_spawn.ts";

const URL_LINE = /^http:\/\/127\.0\.0\.1:(\d+)\/#token=([0-9a-f]{64})$/m;

describe("bub web", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    test(`prints the URL with the token, serves a turn, and exits 0 on ${signal}`, async () => {
      const dirs = tempDirs();
      const server = await MockLlmServer.start({ script: [mockReply.text("hello from web")] });
      cleanup.defer(async () => {
        await server.close();
        dirs.remove();
      });
      const child = startChild(runtimeCommand(BIN, ["web", "--port", "0"]), {
        cwd: dirs.workspace,
        env: childEnv(dirs, {
          BUB_MODEL: "openai:gpt-test",
          BUB_API_BASE: server.url,
          BUB_API_KEY: "k",
          BUB_CONSOLE_MAX_BODY_BYTES: "2048",
        }),
      });
      cleanup.defer(() => child[Symbol.asyncDispose]());
      await child.waitFor(URL_LINE, { timeoutMs: 30_000 });
      const [, port, token] = URL_LINE.exec(child.stdout)!;
      assert.equal(child.stdout.trim().split("\n").length, 1, child.stdout);
      const base = `http://127.0.0.1:${port}`;
      const refused = await fetch(`${base}/api/tapes`);
      assert.equal(refused.status, 401);
      await refused.body?.cancel();
      const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      const posted = await fetch(`${base}/api/sessions/cli-test/messages`, {
        method: "POST",
        headers,
        body: JSON.stringify({ content: "hi" }),
      });
      assert.equal(posted.status, 202);
      await posted.body?.cancel();
      const big = await fetch(`${base}/api/sessions/cli-test/messages`, {
        method: "POST",
        headers,
        body: JSON.stringify({ content: "x".repeat(3000) }),
      });
      assert.equal(big.status, 413, "BUB_CONSOLE_MAX_BODY_BYTES sets the body limit");
      await big.body?.cancel();
      let tapes: { name: string; entries: number }[] = [];
      for (let i = 0; i < 100 && !tapes.some((tape) => tape.entries > 2); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        tapes = (await (await fetch(`${base}/api/tapes`, { headers })).json()).tapes;
      }
      assert.ok(tapes.length > 0, "the turn wrote a tape");
      process.kill(child.process.pid!, signal);
      assert.equal(await child.exited(20_000), 0, child.stderr);
    });
  }

  test("bub gateway --enable-channel web serves the console beside the other channels", async () => {
    const dirs = tempDirs();
    const server = await MockLlmServer.start({ script: [mockReply.text("from the gateway")] });
    cleanup.defer(async () => {
      await server.close();
      dirs.remove();
    });
    const child = startChild(runtimeCommand(BIN, ["gateway", "--enable-channel", "web"]), {
      cwd: dirs.workspace,
      env: childEnv(dirs, {
        BUB_MODEL: "openai:gpt-test",
        BUB_API_BASE: server.url,
        BUB_API_KEY: "k",
        BUB_CONSOLE_MAX_BODY_BYTES: "2048",
      }),
    });
    cleanup.defer(() => child[Symbol.asyncDispose]());
    const line = /^web: http:\/\/127\.0\.0\.1:(\d+)\/#token=([0-9a-f]{64})$/m;
    await child.waitFor(line, { timeoutMs: 30_000 });
    const [, port, token] = line.exec(child.stdout)!;
    const base = `http://127.0.0.1:${port}`;
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const refused = await fetch(`${base}/api/tapes`);
    assert.equal(refused.status, 401);
    await refused.body?.cancel();
    const posted = await fetch(`${base}/api/sessions/gw/messages`, {
      method: "POST",
      headers,
      body: JSON.stringify({ content: "hi" }),
    });
    assert.equal(posted.status, 202);
    await posted.body?.cancel();
    const big = await fetch(`${base}/api/sessions/gw/messages`, {
      method: "POST",
      headers,
      body: JSON.stringify({ content: "x".repeat(3000) }),
    });
    assert.equal(big.status, 413, "the gateway's console reads the body limit too");
    await big.body?.cancel();
    let texts = "";
    for (let i = 0; i < 100 && !texts.includes("from the gateway"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const { tapes } = await (await fetch(`${base}/api/tapes`, { headers })).json();
      if (tapes.length === 0) continue;
      const name = encodeURIComponent(tapes[0].name);
      texts = JSON.stringify(
        await (await fetch(`${base}/api/tapes/${name}/entries`, { headers })).json(),
      );
    }
    assert.ok(texts.includes("from the gateway"), "the answer is on the tape");
    process.kill(child.process.pid!, "SIGTERM");
    assert.equal(await child.exited(20_000), 0, child.stderr);
  });

  test("--host beyond loopback warns; a bad --port is a usage error", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const bad = await runCli(dirs, ["web", "--port", "70000"], {
      env: { BUB_MODEL: "openai:x", BUB_API_KEY: "k" },
    });
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /invalid --port "70000"/);
    const child = startChild(runtimeCommand(BIN, ["web", "--host", "0.0.0.0"]), {
      cwd: dirs.workspace,
      env: childEnv(dirs, { BUB_MODEL: "openai:x", BUB_API_KEY: "k" }),
    });
    cleanup.defer(() => child[Symbol.asyncDispose]());
    await child.waitFor(/warning: listening on 0\.0\.0\.0/, {
      stream: "stderr",
      timeoutMs: 30_000,
    });
    await child.waitFor(/^http:\/\/0\.0\.0\.0:\d+\/#token=/m, { timeoutMs: 30_000 });
    process.kill(child.process.pid!, "SIGTERM");
    assert.equal(await child.exited(20_000), 0, child.stderr);
  });
});
