import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { consoleSecrets } from "../../src/builtin/console_secrets.ts";
import { BubFramework } from "../../src/builtin/framework.ts";

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
      assert.deepEqual(consoleSecrets({ env: {}, config: { api_key: "plain-key-abcdef" } }), [
        "plain-key-abcdef",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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
    assert.deepEqual(secrets, ["123:abcdefghijkl", "sk-env-12345"]);
  });

  test("still give the environment's secrets when the settings do not load", () => {
    const secrets = consoleSecrets({
      env: { BUB_API_KEY: "sk-env-12345" },
      config: { max_steps: "not a number" },
    });
    assert.deepEqual(secrets, ["sk-env-12345"]);
  });
});
