/**
 * The cloud providers, each through its own AI SDK package, loaded on its first call: Google
 * Gemini (`@ai-sdk/google`), Vertex AI (`@ai-sdk/google-vertex`), Azure OpenAI (`@ai-sdk/azure`)
 * and Amazon Bedrock (`@ai-sdk/amazon-bedrock`). {@link CloudSettings} holds what they need
 * beyond an API key and base; the packages read their own environment variables
 * (`GOOGLE_GENERATIVE_AI_API_KEY`, `AZURE_API_KEY`, `AWS_REGION`, `AWS_ACCESS_KEY_ID`...) for
 * whatever Bub's settings leave out.
 *
 * @module
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { readFile } from "node:fs/promises";
import process from "node:process";
import { expandHome } from "../../_internal/home.ts";
import { lazyImport } from "../../_internal/lazy.ts";
import { BubError } from "../../kernel/errors.ts";
import type { FetchLike } from "./_request_body.ts";
import type { ModelId, ProviderPreset, ProviderSdk } from "./provider_presets.ts";

/**
 * What the cloud providers need beyond `api_key` / `api_base` (the settings of the same names,
 * e.g. `vertex_project`, `BUB_VERTEX_PROJECT`). Null or missing: the package's own default or
 * environment variable.
 *
 * @example
 * ```ts
 * import { type CloudSettings, ProviderModelClient } from "@bub/core/agent";
 * const cloud: CloudSettings = { bedrockRegion: "eu-central-1", vertexLocation: "europe-west4" };
 * const client = new ProviderModelClient({ cloud });
 * ```
 */
export interface CloudSettings {
  /** Vertex AI: the Google Cloud project (else `GOOGLE_VERTEX_PROJECT`). */
  vertexProject?: string | null;
  /** Vertex AI: the location, e.g. `us-central1` or `global` (else `GOOGLE_VERTEX_LOCATION`). */
  vertexLocation?: string | null;
  /**
   * Vertex AI: the path of a service-account JSON key file (`~` is the home directory). Without it (and without an access
   * token or an express-mode API key) Google's application default credentials are used.
   */
  vertexCredentials?: string | null;
  /** Vertex AI: an OAuth access token (e.g. `gcloud auth print-access-token`), sent as bearer. */
  vertexAccessToken?: string | null;
  /** Azure OpenAI: the resource name (`https://<name>.openai.azure.com/openai`). */
  azureResourceName?: string | null;
  /**
   * Azure OpenAI: the API version. Null or `v1`: the v1 API (`…/openai/v1/…`); a dated version
   * (`2024-10-21`) calls `…/openai/deployments/<deployment>/…?api-version=<version>`.
   */
  azureApiVersion?: string | null;
  /** Amazon Bedrock: the AWS region (else `AWS_REGION`). */
  bedrockRegion?: string | null;
  /** Amazon Bedrock: the access key id requests are signed with (SigV4; else `AWS_ACCESS_KEY_ID`). */
  bedrockAccessKeyId?: string | null;
  /** Amazon Bedrock: the secret access key (else `AWS_SECRET_ACCESS_KEY`). */
  bedrockSecretAccessKey?: string | null;
  /** Amazon Bedrock: the session token of temporary credentials (else `AWS_SESSION_TOKEN`). */
  bedrockSessionToken?: string | null;
}

/** Everything one cloud model is built from. */
export interface CloudModelInit {
  /** The parsed model id (the model part is the deployment, for Azure). */
  id: ModelId;
  /** The preset (its `sdk` names the package). */
  preset: ProviderPreset;
  /** The API key for this provider, if set. */
  apiKey: string | undefined;
  /** The API base for this provider, if set. */
  baseURL: string | undefined;
  /** Extra request headers (`client_args` headers). */
  headers: Record<string, string>;
  /** Other `client_args`, given to the package's constructor. */
  rest: Record<string, unknown>;
  /** The `fetch` every request goes through. */
  fetch: FetchLike;
  /** The cloud settings. */
  cloud: CloudSettings;
}

const googleModule = lazyImport(() => import("@ai-sdk/google"));
const vertexModule = lazyImport(() => import("@ai-sdk/google-vertex"));
const azureModule = lazyImport(() => import("@ai-sdk/azure"));
const bedrockModule = lazyImport(() => import("@ai-sdk/amazon-bedrock"));

/** The settings named in an error about a provider's configuration. */
const SETTINGS_HINT: Readonly<Record<ProviderSdk, string>> = {
  google: "api_key (BUB_GEMINI_API_KEY or GOOGLE_GENERATIVE_AI_API_KEY)",
  vertex: "vertex_project and vertex_location (BUB_VERTEX_PROJECT, BUB_VERTEX_LOCATION), " +
    "or api_key for express mode",
  azure: "azure_resource_name (BUB_AZURE_RESOURCE_NAME) or api_base, and api_key",
  bedrock: "bedrock_region (BUB_BEDROCK_REGION), and bedrock_access_key_id / " +
    "bedrock_secret_access_key or api_key",
};

function given(value: string | null | undefined): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/** A google-auth-library client that hands out one fixed access token. */
function fixedTokenClient(token: string): unknown {
  return { getAccessToken: () => Promise.resolve({ token, res: null }) };
}

/**
 * What a provider lacks before any request could go out (each also read by its package from the
 * environment variable named), or null.
 */
function missingSetting(
  init: CloudModelInit,
  env: Readonly<Record<string, string | undefined>>,
): string | null {
  const { apiKey, baseURL, cloud } = init;
  switch (init.preset.sdk) {
    case "google":
      return apiKey || env.GOOGLE_GENERATIVE_AI_API_KEY
        ? null
        : "no API key: set api_key (BUB_GEMINI_API_KEY) or GOOGLE_GENERATIVE_AI_API_KEY";
    case "azure":
      if (!baseURL && !given(cloud.azureResourceName) && !env.AZURE_RESOURCE_NAME) {
        return "no resource: set azure_resource_name (BUB_AZURE_RESOURCE_NAME) or api_base";
      }
      return apiKey || env.AZURE_API_KEY
        ? null
        : "no API key: set api_key (BUB_AZURE_API_KEY) or AZURE_API_KEY";
    case "bedrock": {
      const bearer = apiKey || env.AWS_BEARER_TOKEN_BEDROCK;
      if (!given(cloud.bedrockRegion) && !env.AWS_REGION && !(baseURL && bearer)) {
        return "no region: set bedrock_region (BUB_BEDROCK_REGION) or AWS_REGION";
      }
      const keyId = given(cloud.bedrockAccessKeyId) ?? env.AWS_ACCESS_KEY_ID;
      const secret = given(cloud.bedrockSecretAccessKey) ?? env.AWS_SECRET_ACCESS_KEY;
      return bearer || (keyId && secret) ? null : "no credentials: set bedrock_access_key_id " +
        "and bedrock_secret_access_key (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), or an " +
        "API key (api_key, BUB_BEDROCK_API_KEY or AWS_BEARER_TOKEN_BEDROCK)";
    }
    default:
      return null;
  }
}

/** The service-account key of a JSON key file; `BubError(config)` naming the file if unusable. */
async function readKeyFile(path: string): Promise<Record<string, string>> {
  let data: unknown;
  try {
    data = JSON.parse(await readFile(expandHome(path), "utf8"));
  } catch (error) {
    throw new BubError(
      "config",
      `vertex_credentials: cannot read the service-account key file ${JSON.stringify(path)}: ${
        (error as Error).message
      }`,
      { provider: "vertex", path },
      { cause: error },
    );
  }
  const key = data as Record<string, unknown> | null;
  if (typeof key?.client_email !== "string" || typeof key.private_key !== "string") {
    throw new BubError(
      "config",
      `vertex_credentials: ${JSON.stringify(path)} is not a service-account key ` +
        "(no client_email and private_key)",
      { provider: "vertex", path },
    );
  }
  return key as Record<string, string>;
}

/** Loads the package of `init`'s preset; the function returned builds the model. */
async function load(init: CloudModelInit): Promise<() => LanguageModelV4> {
  const { id, apiKey, baseURL, headers, rest, fetch, cloud } = init;
  const common = { ...rest, headers, fetch, ...(baseURL ? { baseURL } : {}) };
  switch (init.preset.sdk) {
    case "google": {
      const { createGoogleGenerativeAI } = await googleModule();
      return () =>
        createGoogleGenerativeAI({ ...common, ...(apiKey ? { apiKey } : {}) })
          .languageModel(id.model);
    }
    case "vertex": {
      const { createVertex } = await vertexModule();
      const project = given(cloud.vertexProject);
      const location = given(cloud.vertexLocation);
      const token = given(cloud.vertexAccessToken);
      const keyFile = given(cloud.vertexCredentials);
      const credentials = keyFile === undefined ? undefined : await readKeyFile(keyFile);
      const auth = token
        ? { googleAuthOptions: { authClient: fixedTokenClient(token) as never } }
        : credentials
        ? { googleAuthOptions: { credentials } }
        : {};
      return () =>
        createVertex({
          ...common,
          ...(project ? { project } : {}),
          ...(location ? { location } : {}),
          // An express-mode key (`x-goog-api-key`) unless Google credentials are given.
          ...(apiKey && !token && !keyFile ? { apiKey } : auth),
        }).languageModel(id.model);
    }
    case "azure": {
      const { createAzure } = await azureModule();
      const resourceName = given(cloud.azureResourceName);
      const apiVersion = given(cloud.azureApiVersion);
      return () => {
        const azure = createAzure({
          ...common,
          ...(apiKey ? { apiKey } : {}),
          ...(resourceName ? { resourceName } : {}),
          ...(apiVersion ? { apiVersion } : {}),
          useDeploymentBasedUrls: apiVersion !== undefined && apiVersion !== "v1",
        });
        return (init.preset.protocol === "openai-responses"
          ? azure.responses(id.model)
          : azure.chat(id.model)) as unknown as LanguageModelV4;
      };
    }
    case "bedrock": {
      const { createAmazonBedrock } = await bedrockModule();
      const region = given(cloud.bedrockRegion);
      const accessKeyId = given(cloud.bedrockAccessKeyId);
      const secretAccessKey = given(cloud.bedrockSecretAccessKey);
      const sessionToken = given(cloud.bedrockSessionToken);
      return () =>
        createAmazonBedrock({
          ...common,
          ...(apiKey ? { apiKey } : {}),
          ...(region ? { region } : {}),
          ...(accessKeyId ? { accessKeyId } : {}),
          ...(secretAccessKey ? { secretAccessKey } : {}),
          ...(sessionToken ? { sessionToken } : {}),
        }).languageModel(id.model) as unknown as LanguageModelV4;
    }
    default:
      throw new BubError("config", `Provider ${JSON.stringify(id.provider)} has no SDK package`, {
        provider: id.provider,
      });
  }
}

/**
 * Builds the `LanguageModelV4` of a cloud preset, loading its package on first use. A setting
 * the package finds missing or wrong is a `BubError(config)` naming the provider and Bub's
 * settings for it.
 */
export async function createCloudModel(init: CloudModelInit): Promise<LanguageModelV4> {
  const missing = missingSetting(init, process.env);
  if (missing !== null) {
    throw new BubError(
      "config",
      `Provider ${JSON.stringify(init.id.provider)} is not configured: ${missing}`,
      { provider: init.id.provider },
    );
  }
  const make = await load(init);
  try {
    return make();
  } catch (error) {
    if (BubError.isInstance(error)) throw error;
    const sdk = init.preset.sdk!;
    const message = error instanceof Error ? error.message : String(error);
    throw new BubError(
      "config",
      `Provider ${JSON.stringify(init.id.provider)} is not configured: ${message} ` +
        `(Bub's settings: ${SETTINGS_HINT[sdk]})`,
      { provider: init.id.provider },
      { cause: error },
    );
  }
}
