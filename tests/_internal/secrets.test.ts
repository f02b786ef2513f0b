import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  knownSecrets,
  redactKnownSecrets,
  redactKnownSecretsDeep,
  registerSecretsOf,
  secretsOf,
} from "../../src/_internal/secrets.ts";
import { errorEntry } from "../../src/tape/entry.ts";

describe("the one list of secrets", () => {
  test("a config's secrets: every secret-shaped key, Bearer credentials, flags and URL passwords", () => {
    const secrets = secretsOf({
      config: {
        model: "openai:gpt-4o-mini",
        max_tokens: 1234567,
        api_key: { openai: "sk-openai-cfg-1", anthropic: "ant-cfg-2222" },
        api_base: "https://llm.example/v1",
        telegram: { token: "123456:tg-cfg-token", allow_users: "alice,bob-the-user" },
        tape_store: "postgresql://bub:tape%2Fpass-9@127.0.0.1:5432/bub",
        mcp_servers: {
          http: { url: "https://mcp.example", headers: { Authorization: "Bearer mcp-tok-333" } },
          stdio: {
            command: "server",
            args: ["--api-key=flag-key-444", "--token", "flag-tok-555", "--verbose"],
            env: { GITHUB_TOKEN: "ghp_env_666666", LOG_LEVEL: "debug-verbose" },
          },
        },
        client_args: { headers: { "X-Api-Key": "hdr-key-777" } },
        myplugin: { nested: { client_secret: "plugin-secret-888" } },
      },
    });
    for (
      const secret of [
        "sk-openai-cfg-1",
        "ant-cfg-2222",
        "123456:tg-cfg-token",
        "tape%2Fpass-9",
        "tape/pass-9",
        "Bearer mcp-tok-333",
        "mcp-tok-333",
        "flag-key-444",
        "flag-tok-555",
        "ghp_env_666666",
        "hdr-key-777",
        "plugin-secret-888",
      ]
    ) {
      assert.ok(secrets.includes(secret), `${secret} in ${JSON.stringify(secrets)}`);
    }
    for (
      const plain of [
        "openai:gpt-4o-mini",
        "1234567",
        "https://llm.example/v1",
        "alice,bob-the-user",
        "--verbose",
        "debug-verbose",
        "server",
      ]
    ) {
      assert.ok(!secrets.includes(plain), `${plain} is not a secret`);
    }
  });

  test("registered values join the environment's; each also JSON-escaped and URL-encoded", () => {
    registerSecretsOf({ config: { api_key: 'sk-"quoted"\\path 1' } });
    const secrets = knownSecrets({ env: { BUB_API_KEY: "sk-env-only-999" } });
    assert.ok(secrets.includes('sk-"quoted"\\path 1'));
    assert.ok(secrets.includes('sk-\\"quoted\\"\\\\path 1'), "JSON-escaped");
    assert.ok(secrets.includes("sk-%22quoted%22%5Cpath%201"), "URL-encoded");
    assert.ok(secrets.includes("sk-env-only-999"));
    const text = JSON.stringify({ error: 'key sk-"quoted"\\path 1 and sk-env-only-999' });
    const redacted = redactKnownSecrets(text, { env: { BUB_API_KEY: "sk-env-only-999" } });
    assert.equal(redacted, '{"error":"key [REDACTED] and [REDACTED]"}');
  });

  test("deep redaction copies arrays and plain objects and keeps other values", () => {
    registerSecretsOf({ config: { token: "deep-token-4242" } });
    const when = new Date(0);
    const out = redactKnownSecretsDeep({
      body: "echo deep-token-4242",
      list: ["x", { inner: "deep-token-4242!" }],
      n: 7,
      when,
    });
    assert.deepEqual(out, {
      body: "echo [REDACTED]",
      list: ["x", { inner: "[REDACTED]!" }],
      n: 7,
      when,
    });
  });

  test("the tape's error entries hold no known secret in their message or details", () => {
    registerSecretsOf({ config: { api_key: "sk-tape-error-0101" } });
    const entry = errorEntry({
      kind: "provider",
      message: "HTTP 401: key sk-tape-error-0101 rejected",
      details: { response_body: '{"error":{"message":"bad key sk-tape-error-0101"}}', status: 401 },
    });
    assert.equal(entry.payload.message, "HTTP 401: key [REDACTED] rejected");
    assert.deepEqual(entry.payload.details, {
      response_body: '{"error":{"message":"bad key [REDACTED]"}}',
      status: 401,
    });
  });
});
