import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import process from "node:process";
import { parse } from "yaml";
import { PROVIDER_PRESETS, providerPreset } from "../../src/agent/providers.ts";
import { cleanupStack, runCli, tempDirs } from "./_spawn.ts";

describe("bub onboard (builtin §16 146)", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test("scripted answers on stdin write exactly model, enabled_channels, stream_output, api_key, api_base in that order", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const answers = [
      "openai",
      "gpt-4o",
      "sk-onboard-1",
      "http://127.0.0.1:9/v1",
      "telegram",
      "y",
      "",
    ];
    const result = await runCli(dirs, ["onboard"], { input: answers.join("\n") });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Saved config to .*config\.yml/);
    if (process.platform !== "win32") {
      assert.equal(statSync(dirs.configFile).mode & 0o777, 0o600, "config.yml is private");
    }
    const data = parse(readFileSync(dirs.configFile, "utf8")) as Record<string, unknown>;
    assert.deepEqual(Object.keys(data), [
      "model",
      "enabled_channels",
      "stream_output",
      "api_key",
      "api_base",
    ]);
    assert.deepEqual(data, {
      model: "openai:gpt-4o",
      enabled_channels: "telegram",
      stream_output: true,
      api_key: "sk-onboard-1",
      api_base: "http://127.0.0.1:9/v1",
    });
  });

  test("choosing no channels writes enabled_channels as an empty string", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const answers = ["anthropic", "claude-x", "sk-2", "", "none", "n", ""];
    const result = await runCli(dirs, ["onboard"], { input: answers.join("\n") });
    assert.equal(result.code, 0, result.stderr);
    const data = parse(readFileSync(dirs.configFile, "utf8")) as Record<string, unknown>;
    assert.equal(data.enabled_channels, "");
    assert.deepEqual(Object.keys(data), ["model", "enabled_channels", "stream_output", "api_key"]);
    assert.equal(data.model, "anthropic:claude-x");
    assert.equal(data.stream_output, false);
  });

  test("end of input at the API-key prompt exits 1 and writes no file", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const result = await runCli(dirs, ["onboard"], { input: "openai\ngpt-4o\n" });
    assert.equal(result.code, 1);
    assert.match(result.stdout, /API key/);
    assert.match(result.stderr, /Aborted!/);
    assert.equal(existsSync(dirs.configFile), false);
  });

  test("the provider menu lists exactly the providers the model runner supports; gemini is asked again", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const answers = ["gemini", "ollama", "llama3", "", "", "none", "n", ""];
    const result = await runCli(dirs, ["onboard"], { input: answers.join("\n") });
    assert.equal(result.code, 0, result.stderr);
    const menu = result.stdout.slice(0, result.stdout.indexOf("[openrouter] >"));
    const listed = [...menu.matchAll(/^ {2}\d+\. (\S+)$/gm)].map((match) => match[1]!);
    assert.deepEqual(listed, Object.keys(PROVIDER_PRESETS));
    for (const name of listed) assert.doesNotThrow(() => providerPreset(name), name);
    for (const missing of ["gemini", "azure", "bedrock"]) assert.ok(!listed.includes(missing));
    assert.match(result.stdout, /Please choose one of: openai, /);
    const data = parse(readFileSync(dirs.configFile, "utf8")) as Record<string, unknown>;
    assert.equal(data.model, "ollama:llama3");
  });

  test("custom asks for the API base until one is given; an unsupported current provider is not offered", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    dirs.writeConfig("model: gemini:gemini-pro\n");
    const answers = ["custom", "my-model", "", "", "http://127.0.0.1:8000/v1", "none", "n", ""];
    const result = await runCli(dirs, ["onboard"], { input: answers.join("\n") });
    assert.equal(result.code, 0, result.stderr);
    assert.doesNotMatch(result.stdout, /gemini/);
    assert.equal(result.stdout.match(/API base \(required for custom\)/g)?.length, 2);
    const data = parse(readFileSync(dirs.configFile, "utf8")) as Record<string, unknown>;
    assert.equal(data.model, "custom:my-model");
    assert.equal(data.api_base, "http://127.0.0.1:8000/v1");
  });
});
