/**
 * Private: the settings of the cloud providers beyond `api_key` / `api_base` (Vertex AI, Azure
 * OpenAI, Amazon Bedrock; YAML root, `BUB_*`), the questions `bub onboard` asks for each, and
 * the {@link CloudSettings} of loaded agent settings.
 *
 * @module
 */
import type { CloudSettings } from "../agent/providers/cloud_models.ts";
import type { FieldSpec } from "./_settings_fields.ts";
import type { AgentSettings } from "./settings_types.ts";
import { checked, field, textList } from "./_settings_schemas.ts";

/** A single DNS label (a location or resource name becomes part of a host name). */
function dnsLabel(): ReturnType<typeof textList> {
  return checked(
    textList(),
    (value) =>
      value === null || /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i.test(String(value))
        ? null
        : "must be a single DNS label (letters, digits and hyphens)",
  );
}

const TEXT = "a string, or null";

/** The cloud provider fields of the agent settings (all default to null: the package's own). */
export const CLOUD_PROVIDER_FIELDS: readonly FieldSpec[] = [
  field("vertex_project", "string", textList, TEXT, null),
  field("vertex_location", "string", dnsLabel, "a DNS label (e.g. us-central1), or null", null),
  field("vertex_credentials", "string", textList, "a file path, or null", null),
  field("vertex_access_token", "string", textList, TEXT, null),
  field("azure_resource_name", "string", dnsLabel, "a DNS label, or null", null),
  field("azure_api_version", "string", textList, TEXT, null),
  field("bedrock_region", "string", dnsLabel, "an AWS region (e.g. us-east-1), or null", null),
  field("bedrock_access_key_id", "string", textList, TEXT, null),
  field("bedrock_secret_access_key", "string", textList, TEXT, null),
  field("bedrock_session_token", "string", textList, TEXT, null),
];

/** The cloud provider settings of loaded {@link AgentSettings} (each null when not set). */
export type CloudProviderSettingValues = Pick<
  AgentSettings,
  | "vertex_project"
  | "vertex_location"
  | "vertex_credentials"
  | "vertex_access_token"
  | "azure_resource_name"
  | "azure_api_version"
  | "bedrock_region"
  | "bedrock_access_key_id"
  | "bedrock_secret_access_key"
  | "bedrock_session_token"
>;

/** The {@link CloudSettings} a `ProviderModelClient` takes, from loaded settings. */
export function cloudSettingsOf(settings: CloudProviderSettingValues): CloudSettings {
  return {
    vertexProject: settings.vertex_project,
    vertexLocation: settings.vertex_location,
    vertexCredentials: settings.vertex_credentials,
    vertexAccessToken: settings.vertex_access_token,
    azureResourceName: settings.azure_resource_name,
    azureApiVersion: settings.azure_api_version,
    bedrockRegion: settings.bedrock_region,
    bedrockAccessKeyId: settings.bedrock_access_key_id,
    bedrockSecretAccessKey: settings.bedrock_secret_access_key,
    bedrockSessionToken: settings.bedrock_session_token,
  };
}

/** One provider-specific question of `bub onboard`. */
export interface OnboardField {
  /** The setting it fills. */
  key: keyof CloudProviderSettingValues;
  /** The question. */
  question: string;
  /** Asked without echo. */
  secret?: boolean;
}

const AZURE_QUESTIONS: readonly OnboardField[] = [
  { key: "azure_resource_name", question: "Azure OpenAI resource name (or give an API base)" },
  {
    key: "azure_api_version",
    question: "Azure API version (optional; empty: the v1 API, or e.g. 2024-10-21)",
  },
];

/** The provider-specific questions of `bub onboard`, by provider key (all optional answers). */
export const ONBOARD_FIELDS: Readonly<Record<string, readonly OnboardField[]>> = {
  vertex: [
    { key: "vertex_project", question: "Google Cloud project" },
    { key: "vertex_location", question: "Vertex AI location (e.g. us-central1, global)" },
    {
      key: "vertex_credentials",
      question: "Service-account JSON key file (optional; else application default credentials)",
    },
  ],
  azure: AZURE_QUESTIONS,
  "azure-responses": AZURE_QUESTIONS,
  bedrock: [
    { key: "bedrock_region", question: "AWS region (e.g. us-east-1)" },
    {
      key: "bedrock_access_key_id",
      question: "AWS access key id (optional; else AWS_ACCESS_KEY_ID or the API key)",
    },
    {
      key: "bedrock_secret_access_key",
      question: "AWS secret access key (optional)",
      secret: true,
    },
  ],
};

/**
 * Whether a cloud provider has credentials from its own settings or the environment variables
 * its package reads (so a missing `api_key` is no reason to stop).
 */
export function cloudCredentialsGiven(
  provider: string,
  settings: CloudProviderSettingValues,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  switch (provider) {
    case "gemini":
    case "google":
      return Boolean(env.GOOGLE_GENERATIVE_AI_API_KEY);
    case "vertex":
      return Boolean(
        settings.vertex_project || settings.vertex_access_token || settings.vertex_credentials ||
          env.GOOGLE_VERTEX_PROJECT || env.GOOGLE_VERTEX_API_KEY,
      );
    case "azure":
    case "azure-responses":
      return Boolean(env.AZURE_API_KEY);
    case "bedrock":
      return Boolean(
        settings.bedrock_access_key_id || env.AWS_ACCESS_KEY_ID || env.AWS_BEARER_TOKEN_BEDROCK,
      );
    default:
      return false;
  }
}
