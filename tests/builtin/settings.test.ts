import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  DEFAULT_MODEL,
  defaultConfigFile,
  expandHome,
  getConfigValue,
  loadAgentSettings,
  loadChannelSettings,
  loadSpillSettings,
  loadTelegramSettings,
  readDotenvFile,
  registerBuiltinConfigSections,
  resolveBubHome,
} from "../../src/builtin/settings.ts";
import { loadConfigFile, validateConfig } from "../../src/kernel/configure.ts";
import { BubError } from "../../src/kernel/errors.ts";

function configError(message: string | RegExp): (error: unknown) => boolean {
  return (error) => {
    assert.ok(BubError.isInstance(error), `expected a BubError, got ${String(error)}`);
    assert.equal((error as BubError).kind, "config");
    if (typeof message === "string") assert.equal((error as BubError).message, message);
    else assert.match((error as BubError).message, message);
    return true;
  };
}

describe("agent settings (§12.3)", () => {
  test("defaults apply when nothing is configured", () => {
    assert.deepEqual(loadAgentSettings({ env: {}, config: {} }), {
      model: DEFAULT_MODEL,
      fallback_models: null,
      api_key: null,
      api_base: null,
      openai_auth_base: "https://auth.openai.com",
      max_steps: Number.MAX_SAFE_INTEGER,
      max_tokens: 16384,
      context_window: null,
      model_timeout_seconds: 600,
      model_stall_timeout_seconds: 120,
      max_answer_bytes: 8 * 1024 * 1024,
      client_args: {},
      completion_args: {},
      verbose: 0,
      tool_output_max_bytes: 4 * 1024 * 1024,
      tool_env_passthrough: null,
      vertex_project: null,
      vertex_location: null,
      vertex_credentials: null,
      vertex_access_token: null,
      azure_resource_name: null,
      azure_api_version: null,
      bedrock_region: null,
      bedrock_access_key_id: null,
      bedrock_secret_access_key: null,
      bedrock_session_token: null,
    });
  });

  test("142: BUB_OPENAI_API_KEY + BUB_ANTHROPIC_API_KEY produce a lowercased api_key map", () => {
    const settings = loadAgentSettings({
      env: { BUB_OPENAI_API_KEY: "sk-o", BUB_ANTHROPIC_API_KEY: "sk-a", PATH: "/bin" },
    });
    assert.deepEqual(settings.api_key, { openai: "sk-o", anthropic: "sk-a" });
    assert.equal(settings.api_base, null);
  });

  test("142: BUB_API_KEY=sk + BUB_OPENAI_API_BASE give a string key and a base map", () => {
    const settings = loadAgentSettings({
      env: {
        BUB_API_KEY: "sk",
        BUB_OPENAI_API_KEY: "ignored",
        BUB_OPENAI_API_BASE: "http://127.0.0.1:9/v1",
      },
    });
    assert.equal(settings.api_key, "sk");
    assert.deepEqual(settings.api_base, { openai: "http://127.0.0.1:9/v1" });
  });

  test("api_key maps from several sources merge key by key, the higher source winning", () => {
    const settings = loadAgentSettings({
      env: {
        BUB_API_KEY: '{"openai":"from-env"}',
        BUB_GROQ_API_KEY: "from-provider",
        BUB_OPENAI_API_KEY: "low",
      },
      config: { api_key: { openai: "from-yaml", anthropic: "from-yaml" } },
    });
    assert.deepEqual(settings.api_key, {
      groq: "from-provider",
      openai: "from-env",
      anthropic: "from-yaml",
    });
  });

  test("a YAML string api_key replaces provider-scoped maps; a higher map replaces a lower string", () => {
    assert.equal(
      loadAgentSettings({ env: { BUB_X_API_KEY: "x" }, config: { api_key: "k" } }).api_key,
      "k",
    );
    assert.deepEqual(
      loadAgentSettings({ env: { BUB_API_KEY: '{"a":"1"}' }, config: { api_key: "k" } }).api_key,
      { a: "1" },
    );
  });

  test("143: env values override YAML values", () => {
    const settings = loadAgentSettings({
      env: { BUB_MODEL: "openai:gpt-4o", BUB_MAX_STEPS: "7", BUB_VERBOSE: "2" },
      config: { model: "anthropic:claude", max_steps: 50, max_tokens: 100 },
    });
    assert.equal(settings.model, "openai:gpt-4o");
    assert.equal(settings.max_steps, 7);
    assert.equal(settings.max_tokens, 100);
    assert.equal(settings.verbose, 2);
  });

  test("143: BUB_CLIENT_ARGS=null yields {}; BUB_FALLBACK_MODELS accepts a JSON array", () => {
    const settings = loadAgentSettings({
      env: {
        BUB_CLIENT_ARGS: "null",
        BUB_COMPLETION_ARGS: '{"reasoning_effort":"high"}',
        BUB_FALLBACK_MODELS: '["openai:gpt-4o-mini","groq:llama"]',
        BUB_MODEL_TIMEOUT_SECONDS: "null",
      },
      config: { client_args: { extra_headers: { a: "b" } }, model_timeout_seconds: 30 },
    });
    assert.deepEqual(settings.client_args, {});
    assert.deepEqual(settings.completion_args, { reasoning_effort: "high" });
    assert.deepEqual(settings.fallback_models, ["openai:gpt-4o-mini", "groq:llama"]);
    assert.equal(settings.model_timeout_seconds, null);
  });

  test("BUB_TOOL_OUTPUT_MAX_BYTES overrides the 4 MiB cap; below 1024 is refused", () => {
    const env = { BUB_TOOL_OUTPUT_MAX_BYTES: "65536" };
    assert.equal(loadAgentSettings({ env }).tool_output_max_bytes, 65536);
    assert.throws(
      () => loadAgentSettings({ env: { BUB_TOOL_OUTPUT_MAX_BYTES: "100" } }),
      /tool_output_max_bytes must be at least 1024, got 100 \(from BUB_TOOL_OUTPUT_MAX_BYTES\)/,
    );
  });

  test("BUB_MAX_ANSWER_BYTES and max_answer_bytes override the 8 MiB answer limit; below 1024 is refused", () => {
    assert.equal(
      loadAgentSettings({ env: { BUB_MAX_ANSWER_BYTES: "65536" } }).max_answer_bytes,
      65536,
    );
    assert.equal(loadAgentSettings({ config: { max_answer_bytes: 4096 } }).max_answer_bytes, 4096);
    assert.throws(
      () => loadAgentSettings({ env: { BUB_MAX_ANSWER_BYTES: "100" } }),
      /max_answer_bytes must be at least 1024, got 100 \(from BUB_MAX_ANSWER_BYTES\)/,
    );
  });

  test("YAML null for client_args yields {}", () => {
    assert.deepEqual(loadAgentSettings({ config: { client_args: null } }).client_args, {});
  });

  test("env > .env values > YAML", () => {
    const dotenv = { BUB_MODEL: "dotenv:model", BUB_MAX_TOKENS: "5" };
    const config = { model: "yaml:model", max_tokens: 1, max_steps: 3 };
    const settings = loadAgentSettings({ env: { BUB_MODEL: "env:model" }, dotenv, config });
    assert.equal(settings.model, "env:model");
    assert.equal(settings.max_tokens, 5);
    assert.equal(settings.max_steps, 3);
  });

  test("environment variable names match case-insensitively", () => {
    assert.equal(loadAgentSettings({ env: { bub_model: "lower:case" } }).model, "lower:case");
  });

  test("unknown YAML keys are ignored", () => {
    assert.equal(loadAgentSettings({ config: { whatever: 1, model: "a:b" } }).model, "a:b");
  });

  test("144: BUB_MAX_STEPS=0 is rejected, naming the key, the value and the source", () => {
    assert.throws(
      () => loadAgentSettings({ env: { BUB_MAX_STEPS: "0" } }),
      configError("max_steps must be greater than 0, got 0 (from BUB_MAX_STEPS)"),
    );
  });

  test("bad values of every type are rejected with the key, value and source", () => {
    const cases: [Record<string, string>, Record<string, unknown>, string][] = [
      [
        { BUB_MAX_STEPS: "abc" },
        {},
        'max_steps must be an integer, got "abc" (from BUB_MAX_STEPS)',
      ],
      [
        { BUB_MAX_STEPS: "null" },
        {},
        "max_steps must be an integer, got null (from BUB_MAX_STEPS)",
      ],
      [
        {},
        { max_tokens: 1.5 },
        "max_tokens must be an integer, got 1.5 (from config key max_tokens)",
      ],
      [{}, { model: null }, "model must be a string, got null (from config key model)"],
      [{ BUB_VERBOSE: "3" }, {}, "verbose must be between 0 and 2, got 3 (from BUB_VERBOSE)"],
      [
        { BUB_FALLBACK_MODELS: "a,b" },
        {},
        'fallback_models must be a list of strings (JSON in env), or null, got "a,b" (from BUB_FALLBACK_MODELS)',
      ],
      [
        { BUB_API_KEY: '{"openai":1}' },
        {},
        'api_key must be a string or a map of provider names to strings, or null, got {"openai":1} (from BUB_API_KEY)',
      ],
      [
        { BUB_CLIENT_ARGS: "[1]" },
        {},
        "client_args must be a mapping (JSON in env), got [1] (from BUB_CLIENT_ARGS)",
      ],
      [
        {},
        { model_timeout_seconds: "soon" },
        'model_timeout_seconds must be a number greater than 0, or null, got "soon" (from config key model_timeout_seconds)',
      ],
    ];
    for (const [env, config, message] of cases) {
      assert.throws(() => loadAgentSettings({ env, config }), configError(message), message);
    }
  });

  test("several bad values are all reported", () => {
    assert.throws(
      () => loadAgentSettings({ env: { BUB_MAX_STEPS: "0" }, config: { max_tokens: "x" } }),
      configError(
        /^max_steps must be greater than 0, got 0 .*; max_tokens must be an integer, got "x"/,
      ),
    );
  });
});

describe("channel, Telegram and spill settings (§12.3)", () => {
  test("channel settings: defaults, env text coerced to numbers and booleans", () => {
    assert.deepEqual(loadChannelSettings({}), {
      enabled_channels: "all",
      debounce_seconds: 1.0,
      max_wait_seconds: 10.0,
      active_time_window: 60.0,
      stream_output: false,
    });
    const settings = loadChannelSettings({
      env: { BUB_STREAM_OUTPUT: "yes", BUB_DEBOUNCE_SECONDS: "0.5" },
      config: { enabled_channels: "telegram,cli", max_wait_seconds: 3 },
    });
    assert.equal(settings.stream_output, true);
    assert.equal(settings.debounce_seconds, 0.5);
    assert.equal(settings.enabled_channels, "telegram,cli");
    assert.equal(settings.max_wait_seconds, 3);
  });

  test("channel settings reject bad booleans, numbers and enabled_channels", () => {
    assert.throws(
      () => loadChannelSettings({ env: { BUB_STREAM_OUTPUT: "maybe" } }),
      configError('stream_output must be a boolean, got "maybe" (from BUB_STREAM_OUTPUT)'),
    );
    assert.throws(
      () => loadChannelSettings({ env: { BUB_DEBOUNCE_SECONDS: "fast" } }),
      configError('debounce_seconds must be a number, got "fast" (from BUB_DEBOUNCE_SECONDS)'),
    );
    assert.throws(
      () => loadChannelSettings({ config: { active_time_window: -1 } }),
      configError(
        "active_time_window must be at least 0, got -1 (from config key active_time_window)",
      ),
    );
    assert.throws(
      () => loadChannelSettings({ config: { enabled_channels: { a: 1 } } }),
      configError(/^enabled_channels must be a string/),
    );
  });

  test("Telegram settings come from the telegram section and BUB_TELEGRAM_*", () => {
    const settings = loadTelegramSettings({
      env: { BUB_TELEGRAM_TOKEN: "env-token" },
      config: {
        telegram: { token: "yaml-token", allow_users: "123456789,my_name", allow_chats: -100 },
      },
    });
    assert.deepEqual(settings, {
      token: "env-token",
      allow_users: "123456789,my_name",
      allow_chats: "-100",
      proxy: null,
      api_root: null,
    });
    assert.deepEqual(loadTelegramSettings({}), {
      token: "",
      allow_users: null,
      allow_chats: null,
      proxy: null,
      api_root: null,
    });
  });

  test("Telegram settings reject a non-mapping section and a non-string token", () => {
    assert.throws(
      () => loadTelegramSettings({ config: { telegram: "abc" } }),
      configError('telegram must be a mapping, got "abc"'),
    );
    assert.throws(
      () => loadTelegramSettings({ config: { telegram: { token: 123 } } }),
      configError("telegram.token must be a string, got 123 (from config key telegram.token)"),
    );
  });

  test("145: BUB_SPILL_THRESHOLD and YAML spill.threshold both configure the spill threshold", () => {
    assert.equal(loadSpillSettings({}).threshold, 4096);
    assert.equal(loadSpillSettings({ config: { spill: { threshold: 100 } } }).threshold, 100);
    assert.equal(
      loadSpillSettings({
        env: { BUB_SPILL_THRESHOLD: "0" },
        config: { spill: { threshold: 100 } },
      }).threshold,
      0,
    );
    assert.throws(
      () => loadSpillSettings({ env: { BUB_SPILL_THRESHOLD: "-1" } }),
      configError("spill.threshold must be at least 0, got -1 (from BUB_SPILL_THRESHOLD)"),
    );
  });
});

describe("config lookup and locations (§12.1, §12.2)", () => {
  test("getConfigValue reads sections and root keys with the environment applied", () => {
    const sources = {
      env: { BUB_TELEGRAM_TOKEN: "env-token", BUB_OPENAI_API_KEY: "sk-o" },
      config: {
        telegram: { token: "yaml-token" },
        model: "a:b",
        stream_output: true,
        plugin: { x: { y: 2 } },
      },
    };
    assert.equal(getConfigValue("telegram.token", sources), "env-token");
    assert.equal(getConfigValue("spill.threshold", sources), 4096);
    assert.equal(getConfigValue("model", sources), "a:b");
    assert.equal(getConfigValue("api_key.openai", sources), "sk-o");
    assert.equal(getConfigValue("stream_output", sources), true);
    assert.equal(getConfigValue("plugin.x.y", sources), undefined, "an unregistered section");
    assert.equal(getConfigValue("telegram.missing", sources), undefined);
    assert.equal(getConfigValue("nothing.here", sources), undefined);
  });

  test("BUB_HOME expands '~' and defaults to ~/.bub; the config file is in BUB_HOME unless BUB_CONFIG names it", () => {
    assert.equal(resolveBubHome({ env: {}, home: "/home/u" }), "/home/u/.bub");
    assert.equal(
      resolveBubHome({ env: { BUB_HOME: "~/elsewhere" }, home: "/home/u" }),
      "/home/u/elsewhere",
    );
    assert.equal(resolveBubHome({ env: { BUB_HOME: "/srv/bub" }, home: "/home/u" }), "/srv/bub");
    assert.equal(expandHome("~", "/home/u"), "/home/u");
    assert.equal(expandHome("a/~", "/home/u"), "a/~");
    assert.equal(defaultConfigFile("/home/u"), "/home/u/.bub/config.yml");
    assert.equal(defaultConfigFile("/home/u", { BUB_HOME: "~/b" }), "/home/u/b/config.yml");
    assert.equal(
      defaultConfigFile("/home/u", { BUB_HOME: "/srv/bub", BUB_CONFIG: "/etc/bub.yml" }),
      "/etc/bub.yml",
    );
  });

  test("readDotenvFile reads a real .env file and gives {} for a missing one", (t) => {
    const dir = mkdtempSync(join(tmpdir(), "bub-settings-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, ".env"), "# comment\nBUB_SPILL_THRESHOLD=12\nexport BUB_MODEL='x:y'\n");
    const dotenv = readDotenvFile(join(dir, ".env"));
    assert.deepEqual(dotenv, { BUB_SPILL_THRESHOLD: "12", BUB_MODEL: "x:y" });
    assert.equal(loadSpillSettings({ dotenv }).threshold, 12);
    assert.deepEqual(readDotenvFile(join(dir, "missing.env")), {});
  });

  test("registered section validators check config.yml data only, never the environment", (t) => {
    const dir = mkdtempSync(join(tmpdir(), "bub-settings-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, "config.yml");
    writeFileSync(
      file,
      "model: openai:gpt-5\nmax_steps: 50\ntelegram: {token: '123:abc'}\nspill: {threshold: 10}\n",
    );
    registerBuiltinConfigSections();
    const data = loadConfigFile(file);
    assert.equal(validateConfig(data), data);
    writeFileSync(file, "max_steps: 0\n");
    assert.throws(
      () => validateConfig(loadConfigFile(file)),
      configError("max_steps must be greater than 0, got 0 (from config key max_steps)"),
    );
    assert.throws(
      () => validateConfig({ spill: { threshold: "big" } }),
      configError(
        'spill.threshold must be an integer, got "big" (from config key spill.threshold)',
      ),
    );
  });
});
