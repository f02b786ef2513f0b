/**
 * How the cloud providers are configured (issue 33 item 2): the URL each one calls without an
 * API base (built from the key, project and location, resource name or region; the request is
 * redirected to the local mock server, so no real endpoint is contacted), where keys come from
 * and what a missing setting says (settings, completion args, onboarding:
 * `cloud_provider_settings.test.ts`).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type FetchLike,
  ProviderModelClient,
  type ProviderSettings,
} from "../../src/agent/providers/provider_model_client.ts";
import type { CloudSettings } from "../../src/agent/providers/cloud_models.ts";
import { PROVIDER_PRESETS } from "../../src/agent/providers/provider_presets.ts";
import { BubError } from "../../src/kernel/errors.ts";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";
import { turnFixture } from "./_turn_fixture.ts";

/** A `fetch` that records each URL and sends the request to `server` instead. */
function redirectTo(server: MockLlmServer, urls: string[]): FetchLike {
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    urls.push(url.href);
    return fetch(`http://127.0.0.1:${server.port}${url.pathname}${url.search}`, init);
  };
}

async function drain(client: ProviderModelClient, model: string): Promise<string> {
  let text = "";
  for await (
    const event of client.stream({ model, messages: [{ role: "user", content: "hi" }] })
  ) {
    if (event.type === "text") text += event.delta;
  }
  return text;
}

async function calledUrl(model: string, apiKey: string | null, cloud: CloudSettings) {
  await using server = await MockLlmServer.start({ script: [mockReply.text("ok")] });
  const urls: string[] = [];
  const client = new ProviderModelClient({
    ...(apiKey ? { apiKey } : {}),
    cloud,
    fetch: redirectTo(server, urls),
  });
  assert.equal(await drain(client, model), "ok");
  return { url: urls[0], headers: server.requests[0]!.headers };
}

describe("cloud provider URLs without an API base", () => {
  test("Gemini calls generativelanguage.googleapis.com/v1beta", async () => {
    const { url, headers } = await calledUrl("gemini:gemini-2.5-flash", "g-key-123456", {});
    assert.equal(
      url,
      "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    );
    assert.equal(headers["x-goog-api-key"], "g-key-123456");
  });

  test("google is the same preset as gemini", () => {
    assert.deepEqual(PROVIDER_PRESETS.google, PROVIDER_PRESETS.gemini);
  });

  test("Vertex AI builds the regional host and path from project and location", async () => {
    const { url, headers } = await calledUrl("vertex:gemini-2.5-flash", null, {
      vertexProject: "my-project",
      vertexLocation: "europe-west4",
      vertexAccessToken: "ya29.token",
    });
    assert.equal(
      url,
      "https://europe-west4-aiplatform.googleapis.com/v1beta1/projects/my-project/locations/europe-west4/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    );
    assert.equal(headers.authorization, "Bearer ya29.token");
  });

  test("Azure OpenAI calls the resource's v1 API by default", async () => {
    const { url, headers } = await calledUrl("azure:my-deployment", "az-key-123456", {
      azureResourceName: "my-resource",
    });
    assert.equal(
      url,
      "https://my-resource.openai.azure.com/openai/v1/chat/completions?api-version=v1",
    );
    assert.equal(headers["api-key"], "az-key-123456");
  });

  test("Bedrock calls the region's bedrock-runtime host, signed for that region", async () => {
    const { url, headers } = await calledUrl("bedrock:amazon.nova-lite-v1:0", null, {
      bedrockRegion: "eu-west-3",
      bedrockAccessKeyId: "AKIAEXAMPLE000",
      bedrockSecretAccessKey: "secret-example",
    });
    assert.equal(
      url,
      "https://bedrock-runtime.eu-west-3.amazonaws.com/model/amazon.nova-lite-v1%3A0/converse-stream",
    );
    assert.match(
      headers.authorization ?? "",
      /Credential=AKIAEXAMPLE000\/\d{8}\/eu-west-3\/bedrock\//,
    );
  });
});

describe("cloud provider keys", () => {
  test("a turn takes the Gemini key from BUB_GEMINI_API_KEY (the api_key map by provider)", async () => {
    await using fx = await turnFixture({
      script: [mockReply.text("ok")],
      env: (server) => ({
        BUB_MODEL: "gemini:gemini-test",
        BUB_API_KEY: undefined,
        BUB_GEMINI_API_KEY: "gemini-scoped-key-1",
        BUB_GEMINI_API_BASE: `http://127.0.0.1:${server.port}/v1beta`,
      }),
    });
    assert.equal((await fx.turn("go")).modelOutput, "ok");
    assert.equal(fx.server.requests[0]!.headers["x-goog-api-key"], "gemini-scoped-key-1");
  });

  test("without Bub's key, @ai-sdk/google reads GOOGLE_GENERATIVE_AI_API_KEY", async () => {
    const before = process.env.GOOGLE_GENERATIVE_AI_API_KEY;
    process.env.GOOGLE_GENERATIVE_AI_API_KEY = "google-env-key-1";
    try {
      await using server = await MockLlmServer.start({ script: [mockReply.text("ok")] });
      const client = new ProviderModelClient({
        apiBase: `http://127.0.0.1:${server.port}/v1beta`,
      });
      assert.equal(await drain(client, "gemini:gemini-test"), "ok");
      assert.equal(server.requests[0]!.headers["x-goog-api-key"], "google-env-key-1");
    } finally {
      if (before === undefined) delete process.env.GOOGLE_GENERATIVE_AI_API_KEY;
      else process.env.GOOGLE_GENERATIVE_AI_API_KEY = before;
    }
  });
});

describe("missing cloud settings", () => {
  test("Vertex AI without project and location (and no key) is a config error naming Bub's settings", async () => {
    const client = new ProviderModelClient({});
    const error = await drain(client, "vertex:gemini-2.5-flash").then(() => null, (e) => e);
    assert.ok(BubError.isInstance(error), String(error));
    assert.equal(error.kind, "config");
    assert.match(error.message, /^Provider "vertex" is not configured: /);
    assert.match(error.message, /vertex_project and vertex_location/);
  });

  test("Gemini, Azure and Bedrock without what they need are config errors naming Bub's settings, before any request", async () => {
    const names = [
      "GOOGLE_GENERATIVE_AI_API_KEY",
      "AZURE_RESOURCE_NAME",
      "AZURE_API_KEY",
      "AWS_REGION",
      "AWS_ACCESS_KEY_ID",
      "AWS_SECRET_ACCESS_KEY",
      "AWS_BEARER_TOKEN_BEDROCK",
    ];
    const saved = names.map((name) => [name, process.env[name]] as const);
    for (const name of names) delete process.env[name];
    try {
      const cases: Array<[string, ProviderSettings, RegExp]> = [
        ["gemini:g", {}, /no API key: set api_key \(BUB_GEMINI_API_KEY\)/],
        ["azure:d", { apiKey: "k" }, /no resource: set azure_resource_name/],
        [
          "azure:d",
          { cloud: { azureResourceName: "r" } },
          /no API key: set api_key \(BUB_AZURE_API_KEY\)/,
        ],
        ["bedrock:m", {}, /no region: set bedrock_region \(BUB_BEDROCK_REGION\)/],
        [
          "bedrock:m",
          { cloud: { bedrockRegion: "us-east-1" } },
          /no credentials: set bedrock_access_key_id/,
        ],
      ];
      for (const [model, settings, pattern] of cases) {
        const requests: string[] = [];
        const client = new ProviderModelClient({
          ...settings,
          fetch: (input) => {
            requests.push(String(input));
            return Promise.reject(new Error("no request expected"));
          },
        });
        const error = await drain(client, model).then(() => null, (e) => e);
        assert.ok(BubError.isInstance(error), String(error));
        assert.equal(error.kind, "config", error.message);
        assert.match(
          error.message,
          new RegExp(`^Provider "${model.split(":")[0]}" is not configured: `),
        );
        assert.match(error.message, pattern);
        assert.deepEqual(requests, []);
      }
    } finally {
      for (const [name, value] of saved) if (value !== undefined) process.env[name] = value;
    }
  });

  test("a Vertex key file that cannot be read, or is no service-account key, is a config error naming it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bub-vertex-key-"));
    try {
      const notKey = join(dir, "not-a-key.json");
      writeFileSync(notKey, JSON.stringify({ type: "authorized_user" }));
      for (
        const [path, pattern] of [
          [join(dir, "missing.json"), /cannot read the service-account key file .*missing\.json/],
          [notKey, /not-a-key\.json" is not a service-account key/],
        ] as const
      ) {
        const client = new ProviderModelClient({
          cloud: { vertexProject: "p", vertexLocation: "us-central1", vertexCredentials: path },
        });
        const error = await drain(client, "vertex:gemini-2.5-flash").then(() => null, (e) => e);
        assert.ok(BubError.isInstance(error), String(error));
        assert.equal(error.kind, "config");
        assert.match(error.message, /^vertex_credentials: /);
        assert.match(error.message, pattern);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
