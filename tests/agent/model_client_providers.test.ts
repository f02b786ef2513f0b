/** Model id parsing, provider presets and api_key / api_base lookup (builtin.md §4.1). */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  lookupProviderSetting,
  parseModelId,
  PROVIDER_PRESETS,
  ProviderModelClient,
} from "../../src/agent/providers/provider_model_client.ts";
import { BubError } from "../../src/kernel/errors.ts";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";

describe("parseModelId", () => {
  test("a colon first splits at the first colon", () => {
    assert.deepEqual(parseModelId("openrouter:openrouter/free"), {
      provider: "openrouter",
      model: "openrouter/free",
    });
    assert.deepEqual(parseModelId("ollama:llama3.2:1b"), {
      provider: "ollama",
      model: "llama3.2:1b",
    });
  });

  test("a slash first is the legacy form split at the first slash", () => {
    assert.deepEqual(parseModelId("openai/gpt-4o"), { provider: "openai", model: "gpt-4o" });
    assert.deepEqual(parseModelId("groq/llama:8b"), { provider: "groq", model: "llama:8b" });
  });

  test("an id with neither delimiter is an invalid_input error naming the id", () => {
    assert.throws(() => parseModelId("gpt-4o"), (error: unknown) => {
      assert.ok(BubError.isInstance(error));
      assert.equal(error.kind, "invalid_input");
      assert.match(error.message, /"gpt-4o"/);
      return true;
    });
  });
});

describe("provider presets", () => {
  test("every required provider has a preset", () => {
    for (
      const name of [
        "openai",
        "openai-responses",
        "anthropic",
        "openrouter",
        "ollama",
        "deepseek",
        "groq",
        "mistral",
        "together",
        "vllm",
        "lmstudio",
        "custom",
      ]
    ) {
      assert.ok(Object.hasOwn(PROVIDER_PRESETS, name), name);
    }
  });

  test("a bad id or an unsupported provider fails when the call is attempted, not before", async () => {
    const client = new ProviderModelClient();
    const noDelimiter = client.stream({ model: "gpt-4o", messages: [] });
    const unsupported = client.stream({ model: "Gemini:pro", messages: [] });
    const first = await noDelimiter[Symbol.asyncIterator]().next().catch((e) => e);
    assert.ok(BubError.isInstance(first));
    assert.equal(first.kind, "invalid_input");
    const second = await unsupported[Symbol.asyncIterator]().next().catch((e) => e);
    assert.ok(BubError.isInstance(second));
    assert.equal(second.kind, "config");
    assert.match(second.message, /Unsupported provider "Gemini"/);
  });

  test("custom needs an api base; with one it calls it", async () => {
    const missing = await new ProviderModelClient().stream({ model: "custom:m", messages: [] })
      [Symbol.asyncIterator]().next().catch((e) => e);
    assert.ok(BubError.isInstance(missing));
    assert.match(missing.message, /needs an API base/);
    await using server = await MockLlmServer.start({ script: [mockReply.text("hello")] });
    const client = new ProviderModelClient({ apiBase: { custom: server.url } });
    const texts: string[] = [];
    for await (
      const e of client.stream({ model: "custom:m", messages: [{ role: "user", content: "x" }] })
    ) {
      if (e.type === "text") texts.push(e.delta);
    }
    assert.deepEqual(texts, ["hello"]);
    assert.equal(server.requests[0]!.path, "/v1/chat/completions");
  });
});

describe("api_key and api_base lookup", () => {
  test("a plain string applies to every provider", () => {
    assert.equal(lookupProviderSetting("sk", "openai"), "sk");
    assert.equal(lookupProviderSetting("sk", "anthropic"), "sk");
  });

  test("a map is read by provider key; a missing key gives null", () => {
    const keys = { openai: "k" };
    assert.equal(lookupProviderSetting(keys, "openai"), "k");
    assert.equal(lookupProviderSetting(keys, "anthropic"), null);
    assert.equal(lookupProviderSetting(keys, "OpenAI"), "k");
    assert.equal(lookupProviderSetting(keys, "openai-responses"), "k");
    assert.equal(lookupProviderSetting(null, "openai"), null);
    assert.equal(lookupProviderSetting(undefined, "openai"), null);
  });

  test("a per-provider api_base map sends each provider to its own base", async () => {
    await using a = await MockLlmServer.start({ script: [mockReply.text("from a")] });
    await using b = await MockLlmServer.start({ script: [mockReply.text("from b")] });
    const client = new ProviderModelClient({ apiBase: { ollama: a.url, vllm: b.url } });
    const ask = async (model: string) => {
      let text = "";
      for await (const e of client.stream({ model, messages: [{ role: "user", content: "x" }] })) {
        if (e.type === "text") text += e.delta;
      }
      return text;
    };
    assert.equal(await ask("ollama:m"), "from a");
    assert.equal(await ask("vllm:m"), "from b");
    assert.equal(a.requests.length, 1);
    assert.equal(b.requests.length, 1);
  });
});
