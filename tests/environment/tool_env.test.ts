import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { LocalEnvironment } from "../../src/environment/local_environment.ts";
import { scrubSecrets, toolEnvironment } from "../../src/environment/tool_env.ts";
import { createEnvironmentHooks } from "../../src/builtin/environment_hooks.ts";
import { ShellManager } from "../../src/environment/shell_manager.ts";
import { loadAgentSettings } from "../../src/builtin/settings.ts";
import { drivers } from "./_helpers.ts";

const SECRETS: Record<string, string> = {
  BUB_API_KEY: "sk-test-api-key-1",
  BUB_OPENAI_API_KEY: "sk-test-openai-2",
  BUB_TELEGRAM_TOKEN: "123456:tg-secret-3",
  BUB_WEBHOOK_SECRET: "hook-secret-4",
  bub_lower_token: "lower-secret-5",
};
const PLAIN = { BUB_MODEL: "custom:x", BUB_TEST_PLAIN: "visible" };

async function envOf(environment: LocalEnvironment, extra?: Record<string, string>) {
  const proc = await environment.spawn(["env"], extra ? { env: extra } : {});
  proc.closeStdin();
  const [text, code] = await Promise.all([new Response(proc.stdout).text(), proc.wait()]);
  assert.equal(code, 0);
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0) out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

describe("tool process environment", () => {
  const saved: Record<string, string | undefined> = {};
  before(() => {
    for (
      const name of [...Object.keys(SECRETS), ...Object.keys(PLAIN), "BUB_TOOL_ENV_PASSTHROUGH"]
    ) {
      saved[name] = process.env[name];
    }
    Object.assign(process.env, SECRETS, PLAIN);
    delete process.env.BUB_TOOL_ENV_PASSTHROUGH;
  });
  after(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  test("scrubSecrets drops BUB_ names holding KEY, TOKEN or SECRET unless passed through", () => {
    const env = scrubSecrets({ ...SECRETS, ...PLAIN, PATH: "/bin", MY_TOKEN: "x" }, [
      "bub_api_key",
    ]);
    assert.deepEqual(env, {
      BUB_API_KEY: SECRETS.BUB_API_KEY,
      ...PLAIN,
      PATH: "/bin",
      MY_TOKEN: "x",
    });
    const withExtra = toolEnvironment(
      { env: { BUB_CALLER_TOKEN: "asked-for" } },
      { BUB_API_KEY: "k", BUB_TOOL_ENV_PASSTHROUGH: " BUB_X_KEY ,", BUB_X_KEY: "kept" },
    );
    assert.deepEqual(withExtra, {
      BUB_TOOL_ENV_PASSTHROUGH: " BUB_X_KEY ,",
      BUB_X_KEY: "kept",
      BUB_CALLER_TOKEN: "asked-for",
    });
  });

  for (const driver of drivers()) {
    test(`[${driver.name}] a real env command sees no secrets; plain and added variables stay`, async () => {
      await using environment = new LocalEnvironment(null, { driver });
      const env = await envOf(environment, { ADDED_BY_CALLER: "yes" });
      for (const [name, value] of Object.entries(SECRETS)) {
        assert.equal(env[name], undefined, `${name} leaked`);
        assert.ok(!Object.values(env).includes(value), `${name}'s value leaked`);
      }
      assert.equal(env.BUB_MODEL, "custom:x");
      assert.equal(env.BUB_TEST_PLAIN, "visible");
      assert.equal(env.ADDED_BY_CALLER, "yes");
      assert.ok(env.PATH, "PATH is inherited");
      const bare = await envOf(environment);
      assert.equal(bare.BUB_API_KEY, undefined);
      assert.equal(bare.BUB_TEST_PLAIN, "visible");
    });

    test(`[${driver.name}] names in BUB_TOOL_ENV_PASSTHROUGH or the envPassthrough option are kept`, async () => {
      process.env.BUB_TOOL_ENV_PASSTHROUGH = "BUB_OPENAI_API_KEY";
      try {
        await using viaEnv = new LocalEnvironment(null, { driver });
        const env = await envOf(viaEnv);
        assert.equal(env.BUB_OPENAI_API_KEY, SECRETS.BUB_OPENAI_API_KEY);
        assert.equal(env.BUB_API_KEY, undefined);
      } finally {
        delete process.env.BUB_TOOL_ENV_PASSTHROUGH;
      }
      await using viaOption = new LocalEnvironment(null, {
        driver,
        envPassthrough: ["BUB_TELEGRAM_TOKEN"],
      });
      const env = await envOf(viaOption);
      assert.equal(env.BUB_TELEGRAM_TOKEN, SECRETS.BUB_TELEGRAM_TOKEN);
      assert.equal(env.BUB_OPENAI_API_KEY, undefined);
    });
  }

  test("the builtin environment hook passes the tool_env_passthrough setting on", async () => {
    const setting = (sources: Parameters<typeof loadAgentSettings>[0]) =>
      loadAgentSettings(sources).tool_env_passthrough;
    assert.equal(setting({ env: {} }), null);
    assert.equal(
      setting({ env: { BUB_TOOL_ENV_PASSTHROUGH: "BUB_A_KEY,BUB_B_TOKEN" } }),
      "BUB_A_KEY,BUB_B_TOKEN",
    );
    assert.equal(
      setting({ config: { tool_env_passthrough: ["BUB_A_KEY", "BUB_B_TOKEN"] } }),
      "BUB_A_KEY,BUB_B_TOKEN",
    );
    const hooks = createEnvironmentHooks({
      shells: new ShellManager(),
      envPassthrough: () => ["BUB_WEBHOOK_SECRET"],
    });
    await using environment = hooks.provideEnvironment({
      sessionId: "s",
      workspace: process.cwd(),
    });
    const env = await envOf(environment);
    assert.equal(env.BUB_WEBHOOK_SECRET, SECRETS.BUB_WEBHOOK_SECRET);
    assert.equal(env.BUB_API_KEY, undefined);
  });
});
