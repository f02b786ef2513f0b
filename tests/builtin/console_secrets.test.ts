import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { consoleSecrets } from "../../src/builtin/console_secrets.ts";
import { BubFramework } from "../../src/builtin/framework.ts";
import { knownSecrets } from "../../src/_internal/secrets.ts";

describe("the web console's secrets", () => {
  test("include an api_key set only in config.yml, as a string or a map by provider", () => {
    const dir = mkdtempSync(join(tmpdir(), "bub-secrets-"));
    try {
      const configFile = join(dir, "config.yml");
      writeFileSync(
        configFile,
        "api_key:\n  openai: sk-config-only-1234\n  anthropic: ant-config-5678\n",
      );
      const framework = new BubFramework({ configFile });
      const secrets = consoleSecrets({ env: {}, config: framework.config });
      assert.ok(secrets.includes("sk-config-only-1234"));
      assert.ok(secrets.includes("ant-config-5678"));
      assert.ok(
        consoleSecrets({ env: {}, config: { api_key: "plain-key-abcdef" } })
          .includes("plain-key-abcdef"),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("include every secret-shaped setting: telegram token, MCP credentials, URL passwords", () => {
    const secrets = consoleSecrets({
      env: {},
      config: {
        telegram: { token: "123456:tg-token-from-config" },
        tape_store: "postgres://bub:pg-pass-31337@127.0.0.1/bub",
        mcp_servers: {
          remote: {
            url: "https://mcp.example/mcp",
            headers: { Authorization: "Bearer mcp-bearer-9" },
          },
          local: {
            command: "srv",
            env: { GITHUB_TOKEN: "ghp_mcp_env_123" },
            args: ["--token", "arg-tok-55"],
          },
        },
        max_tokens: 123456,
        model: "openai:gpt-4o-mini",
      },
    });
    for (
      const secret of [
        "123456:tg-token-from-config",
        "pg-pass-31337",
        "Bearer mcp-bearer-9",
        "mcp-bearer-9",
        "ghp_mcp_env_123",
        "arg-tok-55",
      ]
    ) {
      assert.ok(secrets.includes(secret), secret);
    }
    assert.ok(!secrets.includes("123456"), "a token count is not a secret");
    assert.ok(!secrets.includes("openai:gpt-4o-mini"));
  });

  test("include the secret-named environment variables, longest first, and skip short values", () => {
    const secrets = consoleSecrets({
      env: {
        BUB_TELEGRAM_TOKEN: "123:abcdefghijkl",
        BUB_API_KEY: "sk-env-12345",
        HOME: "/root-home",
      },
      config: { api_key: "abc" },
    });
    assert.ok(secrets.includes("123:abcdefghijkl") && secrets.includes("sk-env-12345"));
    assert.ok(!secrets.includes("abc") && !secrets.includes("/root-home"));
    const lengths = secrets.map((secret) => secret.length);
    assert.deepEqual(lengths, [...lengths].sort((a, b) => b - a), "longest first");
  });

  test("still give the environment's and the config's secrets when the settings do not load", () => {
    const secrets = consoleSecrets({
      env: { BUB_API_KEY: "sk-env-12345" },
      config: { max_steps: "not a number", api_key: "sk-cfg-invalid-settings" },
    });
    assert.ok(secrets.includes("sk-env-12345") && secrets.includes("sk-cfg-invalid-settings"));
  });

  test("are the one list: what the console hides every other sink redacts", () => {
    consoleSecrets({ env: {}, config: { telegram: { token: "777:one-list-token" } } });
    assert.ok(knownSecrets({ env: {} }).includes("777:one-list-token"));
  });
});
