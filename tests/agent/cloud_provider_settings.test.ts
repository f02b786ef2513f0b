/**
 * The cloud providers' settings (issue 33 item 2): loading and checking them, completion args
 * on Gemini's body and on the signed Bedrock body, and `bub onboard`'s questions per provider.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ProviderModelClient } from "../../src/agent/providers/provider_model_client.ts";
import { BubError } from "../../src/kernel/errors.ts";
import { builtinOnboardConfig, type Prompter } from "../../src/builtin/onboard.ts";
import { loadAgentSettings } from "../../src/builtin/settings.ts";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";
import { expectedSigV4, parseSigV4 } from "./_sigv4.ts";

describe("cloud provider settings", () => {
  test("a location that is not a DNS label is refused when the settings load", () => {
    assert.throws(
      () => loadAgentSettings({ env: { BUB_VERTEX_LOCATION: "evil.example.com/x" } }),
      (error: unknown) => {
        assert.ok(BubError.isInstance(error));
        assert.match(error.message, /vertex_location/);
        assert.match(error.message, /DNS label/);
        return true;
      },
    );
  });

  test("the settings load from BUB_* variables and config.yml", () => {
    const settings = loadAgentSettings({
      env: { BUB_BEDROCK_REGION: "us-west-2", BUB_AZURE_API_VERSION: "2024-10-21" },
      config: { vertex_project: "from-yaml", bedrock_region: "eu-west-1" },
    });
    assert.equal(settings.bedrock_region, "us-west-2");
    assert.equal(settings.azure_api_version, "2024-10-21");
    assert.equal(settings.vertex_project, "from-yaml");
    assert.equal(settings.vertex_location, null);
  });
});

describe("completion args", () => {
  test("Bedrock: they go into additionalModelRequestFields, inside the signed body", async () => {
    await using server = await MockLlmServer.start({ script: [mockReply.text("ok")] });
    const secret = "secret-example-2";
    const client = new ProviderModelClient({
      apiBase: `http://127.0.0.1:${server.port}`,
      cloud: {
        bedrockRegion: "us-east-1",
        bedrockAccessKeyId: "AKIAEX",
        bedrockSecretAccessKey: secret,
      },
    });
    for await (
      const _ of client.stream({
        model: "bedrock:anthropic.claude-test",
        messages: [{ role: "user", content: "hi" }],
        completionArgs: { top_k: 40 },
      })
    ) { /* drain */ }
    const request = server.requests[0]!;
    const body = request.body as Record<string, unknown>;
    assert.deepEqual(body.additionalModelRequestFields, { top_k: 40 });
    assert.equal(body.top_k, undefined);
    const auth = parseSigV4(request.headers.authorization)!;
    assert.equal(auth.signature, expectedSigV4(request, auth, secret));
  });

  test("Gemini: they are merged into the request body", async () => {
    await using server = await MockLlmServer.start({ script: [mockReply.text("ok")] });
    const client = new ProviderModelClient({
      apiKey: "g-key-123456",
      apiBase: `http://127.0.0.1:${server.port}/v1beta`,
    });
    for await (
      const _ of client.stream({
        model: "gemini:gemini-test",
        messages: [{ role: "user", content: "hi" }],
        completionArgs: {
          safetySettings: [{ category: "HARM_CATEGORY_HATE_SPEECH", threshold: "BLOCK_NONE" }],
        },
      })
    ) { /* drain */ }
    const body = server.requests[0]!.body as Record<string, unknown>;
    assert.deepEqual(body.safetySettings, [{
      category: "HARM_CATEGORY_HATE_SPEECH",
      threshold: "BLOCK_NONE",
    }]);
  });
});

/** A prompter answering from a script, recording the questions. */
function scripted(answers: Record<string, string>, asked: string[]): Prompter {
  const answer = (question: string, fallback = "") => {
    asked.push(question);
    const key = Object.keys(answers).find((k) => question.startsWith(k));
    return key === undefined ? fallback : answers[key]!;
  };
  return {
    select: (question, choices, fallback) => {
      assert.ok(choices.includes("gemini") && choices.includes("vertex"));
      assert.ok(choices.includes("azure") && choices.includes("bedrock"));
      return answer(question, fallback);
    },
    text: answer,
    secret: (question) => answer(question),
    checkbox: () => [],
    confirm: (_question, fallback) => fallback,
  };
}

describe("bub onboard", () => {
  test("lists the cloud providers and asks Vertex AI for project, location and credentials", () => {
    const asked: string[] = [];
    const fragment = builtinOnboardConfig(
      {},
      scripted({
        "LLM provider": "vertex",
        "Google Cloud project": "my-project",
        "Vertex AI location": "us-central1",
      }, asked),
      [],
    );
    assert.deepEqual(fragment, {
      model: "vertex:gemini-2.5-flash",
      enabled_channels: "",
      stream_output: false,
      vertex_project: "my-project",
      vertex_location: "us-central1",
    });
    assert.ok(asked.some((q) => q.startsWith("Service-account JSON key file")));
  });

  test("asks Bedrock for region and AWS keys, Azure for resource and API version", () => {
    const bedrock = builtinOnboardConfig(
      {},
      scripted({
        "LLM provider": "bedrock",
        "LLM model": "anthropic.claude-sonnet-4-v1:0",
        "AWS region": "eu-central-1",
        "AWS access key id": "AKIAONBOARD",
        "AWS secret access key": "onboard-secret",
      }, []),
      [],
    );
    assert.equal(bedrock.model, "bedrock:anthropic.claude-sonnet-4-v1:0");
    assert.equal(bedrock.bedrock_region, "eu-central-1");
    assert.equal(bedrock.bedrock_access_key_id, "AKIAONBOARD");
    assert.equal(bedrock.bedrock_secret_access_key, "onboard-secret");
    const azure = builtinOnboardConfig(
      {},
      scripted({
        "LLM provider": "azure",
        "LLM model": "my-deployment",
        "Azure OpenAI resource name": "my-resource",
      }, []),
      [],
    );
    assert.equal(azure.azure_resource_name, "my-resource");
    assert.equal(azure.azure_api_version, undefined);
    assert.doesNotThrow(() => loadAgentSettings({ config: { ...bedrock, ...azure } }));
  });
});
