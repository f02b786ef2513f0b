import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import process from "node:process";
import { parse } from "yaml";
import {
  PROVIDER_PRESETS,
  providerPreset,
} from "../../src/agent/providers/provider_model_client.ts";
import {
  BIN,
  childEnv,
  cleanupStack,
  runCli,
  runtimeCommand,
  startChild,
  tempDirs,
} from "./_spawn.ts";

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

  test("the provider menu lists exactly the providers the model runner supports; an unknown one is asked again", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const answers = ["watsonx", "ollama", "llama3", "", "", "none", "n", ""];
    const result = await runCli(dirs, ["onboard"], { input: answers.join("\n") });
    assert.equal(result.code, 0, result.stderr);
    const menu = result.stdout.slice(0, result.stdout.indexOf("[openrouter] >"));
    const listed = [...menu.matchAll(/^ {2}\d+\. (\S+)$/gm)].map((match) => match[1]!);
    assert.deepEqual(listed, Object.keys(PROVIDER_PRESETS));
    for (const name of listed) assert.doesNotThrow(() => providerPreset(name), name);
    for (const cloud of ["gemini", "vertex", "azure", "bedrock"]) assert.ok(listed.includes(cloud));
    assert.ok(!listed.includes("watsonx"));
    assert.match(result.stdout, /Please choose one of: openai, /);
    const data = parse(readFileSync(dirs.configFile, "utf8")) as Record<string, unknown>;
    assert.equal(data.model, "ollama:llama3");
  });

  test("custom asks for the API base until one is given; an unsupported current provider is not offered", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    dirs.writeConfig("model: watsonx:granite\n");
    const answers = ["custom", "my-model", "", "", "http://127.0.0.1:8000/v1", "none", "n", ""];
    const result = await runCli(dirs, ["onboard"], { input: answers.join("\n") });
    assert.equal(result.code, 0, result.stderr);
    assert.doesNotMatch(result.stdout, /watsonx/);
    assert.equal(result.stdout.match(/API base \(required for custom\)/g)?.length, 2);
    const data = parse(readFileSync(dirs.configFile, "utf8")) as Record<string, unknown>;
    assert.equal(data.model, "custom:my-model");
    assert.equal(data.api_base, "http://127.0.0.1:8000/v1");
  });

  test("the banner keeps its five lines; a provider chosen afresh is not offered another's model", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    // custom: no model is suggested, so it is asked until given.
    const answers = ["custom", "", "my-model", "", "http://127.0.0.1:8000/v1", "none", "n", ""];
    const result = await runCli(dirs, ["onboard"], { input: answers.join("\n") });
    assert.equal(result.code, 0, result.stderr);
    assert.ok(
      result.stdout.includes(
        [
          "  ____        _",
          " | __ ) _   _| |__",
          " |  _ \\| | | | '_ \\",
          " | |_) | |_| | |_) |",
          " |____/ \\__,_|_.__/",
        ].join("\n"),
      ),
      result.stdout,
    );
    assert.doesNotMatch(result.stdout, /openrouter\/free/, "no other provider's model");
    assert.equal(result.stdout.match(/LLM model \(required\) >/g)?.length, 2);
    const data = parse(readFileSync(dirs.configFile, "utf8")) as Record<string, unknown>;
    assert.equal(data.model, "custom:my-model");
  });

  test("on a terminal the API key is not echoed (a * per character), and is saved", {
    skip: !existsSync("/usr/bin/script") && "needs script(1) for a pseudo-terminal",
  }, async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const command = runtimeCommand(BIN, ["onboard"]).map((word) => `'${word}'`).join(" ");
    await using child = startChild(["script", "-qfec", command, "/dev/null"], {
      cwd: dirs.workspace,
      env: childEnv(dirs),
    });
    const answer = async (prompt: string | RegExp, text: string) => {
      await child.waitFor(prompt, { timeoutMs: 60_000 });
      child.write(`${text}\r`);
    };
    await answer("[openrouter] >", "openai");
    await answer("LLM model (required) >", "gpt-x");
    await answer("API key (optional) >", "sk-SECRET-123");
    await answer("API base (optional)", "");
    await answer(/\[[a-z,]*\] >/, "none");
    await answer("Stream output", "n");
    await child.waitFor("Saved config", { timeoutMs: 60_000 });
    assert.equal(await child.exited(60_000), 0, child.stderr);
    assert.ok(!child.stdout.includes("sk-SECRET-123"), child.stdout);
    assert.match(child.stdout, /API key \(optional\) > \*{13}\r?\n/);
    const data = parse(readFileSync(dirs.configFile, "utf8")) as Record<string, unknown>;
    assert.equal(data.api_key, "sk-SECRET-123");
  });
});
