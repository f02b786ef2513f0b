/**
 * `bub login openai` stops cleanly on a signal: SIGINT while it waits for the browser closes the
 * callback server and exits 130; SIGTERM while it waits for the device code exits 143; neither
 * writes a login. Against the fake OpenAI authorization server.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { FakeOpenAIAuth } from "../../src/testing/fake_openai_auth.ts";
import {
  BIN,
  childEnv,
  cleanupStack,
  runtimeCommand,
  startChild,
  type TempDirs,
  tempDirs,
} from "./_spawn.ts";

const TIMEOUT = 60_000;

function authFile(dirs: TempDirs): string {
  return join(dirs.bubHome, "auth", "openai.json");
}

describe("bub login openai on a signal", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  async function fixtures() {
    const dirs = tempDirs("bub-login-signal-");
    cleanup.defer(() => dirs.remove());
    const auth = await FakeOpenAIAuth.start();
    cleanup.defer(() => auth.close());
    return { dirs, auth, env: { BUB_OPENAI_AUTH_BASE: auth.url } };
  }

  test("SIGINT while waiting for the browser: callback server closed, exit 130, nothing written", async () => {
    const { dirs, env } = await fixtures();
    await using child = startChild(
      runtimeCommand(BIN, ["login", "openai", "--no-browser", "--port", "0"]),
      { cwd: dirs.workspace, env: childEnv(dirs, env) },
    );
    child.end();
    const urlLine = /sign in with ChatGPT:\n\s+(\S+)\n/;
    await child.waitFor("Waiting for the sign-in", { timeoutMs: TIMEOUT });
    const authorize = new URL(urlLine.exec(child.stdout)![1]!);
    const callback = new URL(authorize.searchParams.get("redirect_uri")!);
    callback.hostname = "127.0.0.1";
    const alive = await fetch(new URL("/nothing", callback));
    assert.equal(alive.status, 404, "the callback server listens");
    await alive.body?.cancel();
    process.kill(child.process.pid!, "SIGINT");
    assert.equal(await child.exited(TIMEOUT), 130, child.stderr);
    await assert.rejects(fetch(callback), "the callback server is closed");
    assert.ok(!existsSync(authFile(dirs)));
  });

  test("SIGTERM while waiting for the device code: exit 143, nothing written", async () => {
    const { dirs, env } = await fixtures();
    await using child = startChild(runtimeCommand(BIN, ["login", "openai", "--device"]), {
      cwd: dirs.workspace,
      env: childEnv(dirs, env),
    });
    child.end();
    await child.waitFor("Waiting for the sign-in", { timeoutMs: TIMEOUT });
    process.kill(child.process.pid!, "SIGTERM");
    assert.equal(await child.exited(TIMEOUT), 143, child.stderr);
    assert.ok(!existsSync(authFile(dirs)));
  });
});
