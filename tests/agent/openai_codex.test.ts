/**
 * The `openai-codex` provider and the ChatGPT login's tokens: requests reach a fake ChatGPT
 * backend with the login's bearer and account; tokens are refreshed before expiry and after a
 * 401, persisted 0600; two processes refreshing at once keep the refresh token.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { OpenAIAuth, type OpenAITokens } from "../../src/agent/providers/openai_auth.ts";
import { ProviderModelClient } from "../../src/agent/providers/provider_model_client.ts";
import type { ModelEvent } from "../../src/agent/model_client.ts";
import { knownSecrets } from "../../src/_internal/secrets.ts";
import { FakeOpenAIAuth } from "../../src/testing/fake_openai_auth.ts";
import { MockLlmServer, mockReply, type MockRequest } from "../../src/testing/mock_llm_server.ts";

const CHILD = resolve(dirname(fileURLToPath(import.meta.url)), "_openai_refresh_child.ts");

/** A fake ChatGPT backend: answers with `text` when the bearer and account are the login's. */
function backend(auth: FakeOpenAIAuth, text: string): Promise<MockLlmServer> {
  return MockLlmServer.start({
    script: (request: MockRequest) =>
      auth.acceptsBearer(request.headers.authorization) &&
        request.headers["chatgpt-account-id"] === auth.accountId
        ? mockReply.text(text)
        : { error: { status: 401, message: "Unauthorized" } },
  });
}

/** A stored login made earlier: tokens from the fake, expiring `expiresInMs` from now. */
function storedTokens(auth: FakeOpenAIAuth, expiresInMs: number): OpenAITokens {
  const grant = auth.issueTokens() as Record<string, string>;
  return {
    access_token: grant.access_token!,
    refresh_token: grant.refresh_token!,
    id_token: grant.id_token!,
    account_id: auth.accountId,
    expires_at: new Date(Date.now() + expiresInMs).toISOString(),
    last_refresh: new Date().toISOString(),
  };
}

async function textOf(stream: AsyncIterable<ModelEvent>): Promise<string> {
  let text = "";
  for await (const event of stream) if (event.type === "text") text += event.delta;
  return text;
}

const request = (model: string) => ({
  model,
  messages: [
    { role: "system" as const, content: "You are Bub." },
    { role: "user" as const, content: "hi" },
  ],
  maxTokens: 1000,
});

describe("openai-codex provider", () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()!();
  });

  function tempFile(): string {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "bub-codex-")));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return join(dir, "auth", "openai.json");
  }

  async function setup(expiresInMs: number) {
    const auth = await FakeOpenAIAuth.start();
    cleanups.push(() => auth.close());
    const server = await backend(auth, "hello from codex");
    cleanups.push(() => server.close());
    const file = tempFile();
    const tokens = storedTokens(auth, expiresInMs);
    await new OpenAIAuth({ file, issuer: auth.url }).save(tokens);
    const client = new ProviderModelClient({
      apiBase: { "openai-codex": server.url },
      openaiAuth: { file, issuer: auth.url },
    });
    return { auth, server, file, tokens, client };
  }

  test("a call sends the login's bearer, the account header and the backend's headers; the system prompt goes as instructions, store false", async () => {
    const { auth, server, client, tokens } = await setup(3600_000);
    assert.equal(
      await textOf(client.stream(request("openai-codex:gpt-5.1-codex"))),
      "hello from codex",
    );
    const sent = server.requests[0]!;
    assert.equal(sent.path, "/v1/responses");
    assert.equal(sent.headers.authorization, `Bearer ${tokens.access_token}`);
    assert.equal(sent.headers["chatgpt-account-id"], auth.accountId);
    assert.equal(sent.headers["openai-beta"], "responses=experimental");
    assert.equal(sent.headers.originator, "bub");
    const body = sent.body as Record<string, unknown>;
    assert.equal(body.model, "gpt-5.1-codex");
    assert.equal(body.store, false);
    assert.equal(body.stream, true);
    assert.equal(body.instructions, "You are Bub.");
    assert.equal(body.max_output_tokens, undefined);
    assert.deepEqual(body.include, ["reasoning.encrypted_content"]);
    const roles = (body.input as Array<{ role?: string }>).map((item) => item.role);
    assert.deepEqual(roles, ["user"]);
    assert.deepEqual(auth.grants, [], "a fresh token is used as it is");
    assert.ok(knownSecrets().includes(tokens.refresh_token), "the refresh token is a known secret");
  });

  test("an access token about to expire is refreshed before the call, and the new tokens are stored 0600", async () => {
    const { auth, server, client, file, tokens } = await setup(30_000);
    assert.equal(await textOf(client.stream(request("openai-codex:gpt-5"))), "hello from codex");
    assert.deepEqual(auth.grants, [{ grantType: "refresh_token", ok: true }]);
    const stored = JSON.parse(readFileSync(file, "utf8")) as OpenAITokens;
    assert.notEqual(stored.access_token, tokens.access_token);
    assert.notEqual(stored.refresh_token, tokens.refresh_token);
    assert.equal(server.requests[0]!.headers.authorization, `Bearer ${stored.access_token}`);
    assert.ok(Date.parse(stored.expires_at) > Date.now() + 3000_000);
    if (process.platform !== "win32") {
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(statSync(dirname(file)).mode & 0o777, 0o700);
    }
  });

  test("a 401 from the backend refreshes the login once and the call is sent again", async () => {
    const { auth, server, client, file } = await setup(3600_000);
    auth.revokeAccessTokens();
    assert.equal(await textOf(client.stream(request("openai-codex:gpt-5"))), "hello from codex");
    assert.equal(server.requests.length, 2);
    assert.deepEqual(auth.grants, [{ grantType: "refresh_token", ok: true }]);
    const stored = JSON.parse(readFileSync(file, "utf8")) as OpenAITokens;
    assert.equal(server.requests[1]!.headers.authorization, `Bearer ${stored.access_token}`);
  });

  test("an openai: model uses the login when no OpenAI key is configured; a configured key wins", async () => {
    const { server, client, file, auth } = await setup(3600_000);
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    cleanups.push(() => {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    });
    assert.equal(await textOf(client.stream(request("openai:gpt-5"))), "hello from codex");
    assert.equal(server.requests[0]!.path, "/v1/responses");
    const keyed = new ProviderModelClient({
      apiKey: { openai: "sk-configured-key" },
      apiBase: { "openai-codex": server.url, openai: server.url },
      openaiAuth: { file, issuer: auth.url },
    });
    server.push(mockReply.text("via the key"));
    assert.equal(await textOf(keyed.stream(request("openai:gpt-5"))), "via the key");
    assert.equal(server.requests[1]!.path, "/v1/chat/completions");
    assert.equal(server.requests[1]!.headers.authorization, "Bearer sk-configured-key");
  });

  test("without a login the call fails with a config error telling to run bub login openai", async () => {
    const client = new ProviderModelClient({
      apiBase: "http://127.0.0.1:9/v1",
      openaiAuth: { file: tempFile() },
    });
    await assert.rejects(textOf(client.stream(request("openai-codex:gpt-5"))), (error: unknown) => {
      assert.equal((error as { kind?: string }).kind, "config");
      assert.match(String(error), /bub login openai/);
      return true;
    });
  });

  test("two processes refreshing at once both get the new token and the refresh token is not lost", async () => {
    const auth = await FakeOpenAIAuth.start({ tokenDelayMs: 300 });
    cleanups.push(() => auth.close());
    const file = tempFile();
    await new OpenAIAuth({ file, issuer: auth.url }).save(storedTokens(auth, 1000));
    const run = () =>
      new Promise<{ code: number | null; out: string; err: string }>((done) => {
        const args = "Deno" in globalThis ? ["run", "-A", CHILD] : [CHILD];
        const child = spawn(process.execPath, [...args, file, auth.url], { stdio: "pipe" });
        let out = "";
        let err = "";
        child.stdout.on("data", (chunk) => out += chunk);
        child.stderr.on("data", (chunk) => err += chunk);
        child.on("close", (code) => done({ code, out, err }));
      });
    const results = await Promise.all([run(), run()]);
    for (const result of results) assert.equal(result.code, 0, result.err);
    const tokens = results.map((result) => JSON.parse(result.out).accessToken as string);
    assert.equal(tokens[0], tokens[1], "the second process uses the tokens the first obtained");
    assert.deepEqual(auth.grants, [{ grantType: "refresh_token", ok: true }]);
    // The stored refresh token is the live one: one more refresh succeeds.
    const stored = JSON.parse(readFileSync(file, "utf8")) as OpenAITokens;
    assert.equal(stored.access_token, tokens[0]);
    const again = new OpenAIAuth({ file, issuer: auth.url });
    await again.credentials({ rejected: stored.access_token });
    assert.deepEqual(auth.grants.at(-1), { grantType: "refresh_token", ok: true });
  });

  test("a lock file left by a process that died is taken over and the refresh goes ahead", async () => {
    const auth = await FakeOpenAIAuth.start();
    cleanups.push(() => auth.close());
    const file = tempFile();
    const login = new OpenAIAuth({ file, issuer: auth.url });
    await login.save(storedTokens(auth, 1000));
    writeFileSync(`${file}.lock`, "999999\n");
    const old = new Date(Date.now() - 120_000);
    utimesSync(`${file}.lock`, old, old);
    const credentials = await login.credentials();
    assert.equal(credentials.accountId, auth.accountId);
    assert.deepEqual(auth.grants, [{ grantType: "refresh_token", ok: true }]);
  });
});
