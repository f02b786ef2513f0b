/**
 * `bub login openai` / `bub logout openai` driven as a user would, against a local fake of
 * OpenAI's authorization server and a fake ChatGPT backend: the device-code flow (pending, then
 * slow_down, then approved), the browser flow with the test as the browser (PKCE checked by the
 * fake), a turn through the backend with a 401 forcing one refresh, the token file's mode, a
 * taken callback port, an expired device code and a browser that never comes back.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import process from "node:process";
import { FakeOpenAIAuth } from "../../src/testing/fake_openai_auth.ts";
import { MockLlmServer, mockReply, type MockRequest } from "../../src/testing/mock_llm_server.ts";
import {
  BIN,
  childEnv,
  cleanupStack,
  runCli,
  runtimeCommand,
  startChild,
  type TempDirs,
  tempDirs,
} from "./_spawn.ts";

const TIMEOUT = 60_000;

function authFile(dirs: TempDirs): string {
  return join(dirs.bubHome, "auth", "openai.json");
}

describe("bub login openai", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  async function fixtures(options: Parameters<typeof FakeOpenAIAuth.start>[0] = {}) {
    const dirs = tempDirs("bub-login-test-");
    cleanup.defer(() => dirs.remove());
    const auth = await FakeOpenAIAuth.start(options);
    cleanup.defer(() => auth.close());
    const backend = await MockLlmServer.start({
      script: (request: MockRequest) =>
        auth.acceptsBearer(request.headers.authorization) &&
          request.headers["chatgpt-account-id"] === auth.accountId
          ? mockReply.text("hello from the subscription")
          : { error: { status: 401, message: "Unauthorized" } },
    });
    cleanup.defer(() => backend.close());
    return { dirs, auth, backend, env: { BUB_OPENAI_AUTH_BASE: auth.url } };
  }

  /** Starts `bub login <args>`, enters the device code it prints at the fake, and waits. */
  async function deviceLogin(
    dirs: TempDirs,
    auth: FakeOpenAIAuth,
    env: Record<string, string>,
    args: string[],
  ) {
    await using child = startChild(runtimeCommand(BIN, ["login", ...args]), {
      cwd: dirs.workspace,
      env: childEnv(dirs, env),
    });
    child.end();
    const codeLine = /enter the code[^\n]*\n\s+(\S+)\n/;
    await child.waitFor(codeLine, { timeoutMs: TIMEOUT });
    const userCode = codeLine.exec(child.stdout)![1]!;
    assert.ok(child.stdout.includes(`${auth.url}/codex/device`), child.stdout);
    // The user enters the code once the CLI has polled a few times (pending, slow_down).
    while (auth.devicePolls < 3) await new Promise((resolve) => setTimeout(resolve, 20));
    auth.approveDevice(userCode);
    const code = await child.exited(TIMEOUT);
    return { code, stdout: child.stdout, stderr: child.stderr };
  }

  test("--device signs in, a turn runs through the ChatGPT backend (a 401 refreshes once), logout removes the login", async () => {
    const { dirs, auth, backend, env } = await fixtures({ slowDownInterval: 0.1 });
    const login = await deviceLogin(dirs, auth, env, ["openai", "--device"]);
    assert.equal(login.code, 0, login.stderr);
    assert.match(login.stdout, /^login: ok$/m);
    assert.match(login.stdout, new RegExp(`^account_id: ${auth.accountId}$`, "m"));
    assert.ok(login.stdout.includes(`auth_file: ${authFile(dirs)}`), login.stdout);
    assert.deepEqual(auth.grants, [{ grantType: "authorization_code", ok: true }]);
    const stored = JSON.parse(readFileSync(authFile(dirs), "utf8"));
    assert.equal(stored.account_id, auth.accountId);
    assert.ok(auth.acceptsBearer(`Bearer ${stored.access_token}`));
    if (process.platform !== "win32") {
      assert.equal(statSync(authFile(dirs)).mode & 0o777, 0o600, "the token file is private");
      assert.equal(statSync(join(dirs.bubHome, "auth")).mode & 0o777, 0o700);
    }

    const status = await runCli(dirs, ["login", "--status"], { env, timeoutMs: TIMEOUT });
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /openai: logged in/);
    assert.match(status.stdout, /used by: openai-codex: and openai: models/);

    auth.revokeAccessTokens(); // the backend answers the stored token with 401
    const run = await runCli(dirs, ["run", "--no-stream", "hi"], {
      env: { ...env, BUB_MODEL: "openai-codex:gpt-5.1-codex", BUB_API_BASE: backend.url },
      timeoutMs: TIMEOUT,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /hello from the subscription/);
    assert.equal(backend.requests.length, 2, "refused once, then sent again");
    assert.deepEqual(auth.grants.at(-1), { grantType: "refresh_token", ok: true });
    const refreshed = JSON.parse(readFileSync(authFile(dirs), "utf8"));
    assert.notEqual(refreshed.refresh_token, stored.refresh_token, "the new tokens are stored");
    assert.equal(
      backend.requests[1]!.headers.authorization,
      `Bearer ${refreshed.access_token}`,
    );
    for (const secret of [stored.access_token, refreshed.refresh_token]) {
      assert.ok(!`${run.stdout}${run.stderr}${login.stdout}`.includes(secret), "no token printed");
    }

    // An `openai:` model with no OpenAI key configured uses the login too.
    dirs.writeConfig(`api_base:\n  openai-codex: ${backend.url}\n`);
    const keyless = await runCli(dirs, ["run", "--no-stream", "hi again"], {
      env: { ...env, BUB_MODEL: "openai:gpt-5.1-codex" },
      timeoutMs: TIMEOUT,
    });
    assert.equal(keyless.code, 0, keyless.stderr);
    assert.match(keyless.stdout, /hello from the subscription/);
    assert.equal(backend.requests.at(-1)!.path, "/v1/responses");

    const logout = await runCli(dirs, ["logout", "openai"], { env, timeoutMs: TIMEOUT });
    assert.equal(logout.code, 0, logout.stderr);
    assert.match(logout.stdout, /Logged out of openai/);
    assert.ok(!existsSync(authFile(dirs)));
    const again = await runCli(dirs, ["logout", "openai"], { env, timeoutMs: TIMEOUT });
    assert.match(again.stdout, /Not logged in to openai/);
    const none = await runCli(dirs, ["login", "--status"], { env, timeoutMs: TIMEOUT });
    assert.equal(none.code, 1);
    assert.match(none.stderr, /not logged in \(run 'bub login openai'\)/);
  });

  test("without a browser or terminal, plain `bub login openai` uses the device code", async () => {
    const { dirs, auth, env } = await fixtures();
    const login = await deviceLogin(dirs, auth, env, ["openai"]);
    assert.equal(login.code, 0, login.stderr);
    assert.match(login.stdout, /No browser here: signing in with a device code/);
    assert.match(login.stdout, /^login: ok$/m);
  });

  test("the browser flow: the test opens the printed URL, the issuer redirects to the local callback, PKCE is checked", async () => {
    const { dirs, auth, env } = await fixtures();
    await using child = startChild(
      runtimeCommand(BIN, ["login", "openai", "--no-browser", "--port", "0"]),
      { cwd: dirs.workspace, env: childEnv(dirs, env) },
    );
    child.end();
    const urlLine = /sign in with ChatGPT:\n\s+(\S+)\n/;
    await child.waitFor(urlLine, { timeoutMs: TIMEOUT });
    const authorize = new URL(urlLine.exec(child.stdout)![1]!);
    assert.equal(authorize.origin, auth.url);
    assert.equal(authorize.searchParams.get("code_challenge_method"), "S256");
    // The browser: the authorize page redirects to the callback on localhost.
    const redirect = await fetch(authorize, { redirect: "manual" });
    assert.equal(redirect.status, 302);
    const callback = new URL(redirect.headers.get("location")!);
    assert.equal(callback.hostname, "localhost");
    callback.hostname = "127.0.0.1";
    const forged = new URL(callback);
    forged.searchParams.set("state", "not-the-state");
    const refused = await fetch(forged);
    assert.equal(refused.status, 400, "a callback with another state is refused");
    await refused.body?.cancel();
    const page = await fetch(callback);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /Signed in to ChatGPT/);
    assert.equal(await child.exited(TIMEOUT), 0, child.stderr);
    assert.match(child.stdout, /^login: ok$/m);
    assert.deepEqual(auth.grants, [{ grantType: "authorization_code", ok: true }]);
    assert.equal(statSync(authFile(dirs)).mode & 0o777, 0o600);
  });

  test("a taken callback port is a clear error naming the port and the device-code way", async () => {
    const { dirs, env } = await fixtures();
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    cleanup.defer(() => new Promise((resolve) => blocker.close(resolve)));
    const port = (blocker.address() as { port: number }).port;
    const result = await runCli(dirs, ["login", "openai", "--no-browser", "--port", String(port)], {
      env,
      timeoutMs: TIMEOUT,
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, new RegExp(`127\\.0\\.0\\.1:${port} is in use`));
    assert.match(result.stderr, /bub login openai --device/);
    assert.ok(!existsSync(authFile(dirs)));
  });

  test("an expired device code and a browser that never returns end the login with exit 1", async () => {
    const { dirs, env } = await fixtures({ deviceExpiresSeconds: 0.3 });
    const expired = await runCli(dirs, ["login", "openai", "--device"], {
      env,
      timeoutMs: TIMEOUT,
    });
    assert.equal(expired.code, 1);
    assert.match(expired.stderr, /device code expired/);
    const late = await runCli(
      dirs,
      ["login", "openai", "--no-browser", "--port", "0", "--timeout", "0.5"],
      { env, timeoutMs: TIMEOUT },
    );
    assert.equal(late.code, 1);
    assert.match(late.stderr, /No sign-in arrived within/);
    assert.ok(!existsSync(authFile(dirs)));
  });

  test("an unknown provider is a usage error; an openai-codex model without a login says to log in", async () => {
    const dirs = tempDirs("bub-login-test-");
    cleanup.defer(() => dirs.remove());
    const result = await runCli(dirs, ["login", "gemini"], { timeoutMs: TIMEOUT });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /cannot log in to "gemini": expected one of openai/);
    const run = await runCli(dirs, ["run", "hi"], {
      env: { BUB_MODEL: "openai-codex:gpt-5.1-codex" },
      timeoutMs: TIMEOUT,
    });
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /openai-codex:gpt-5\.1-codex needs a ChatGPT login: run 'bub login openai'/,
    );
  });
});
