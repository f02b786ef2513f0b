/**
 * The shapes of the builtin settings sections (spec/builtin.md §12), as `settings.ts` loads them:
 * agent, channels, Telegram, spill, tape store, MCP and the web console.
 *
 * @module
 */
import type { EnvMap } from "./_settings_fields.ts";

/**
 * Where settings come from. Every member is optional; missing means empty.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadAgentSettings, type SettingsSources } from "@bub/core/builtin";
 * const sources: SettingsSources = { env: { BUB_MODEL: "env:model" }, config: { model: "file:model" } };
 * assert.equal(loadAgentSettings(sources).model, "env:model"); // the environment wins over config.yml
 * ```
 */
export interface SettingsSources {
  /** The process environment (pass `process.env`). */
  env?: EnvMap;
  /** Values of a `.env` file, below `env` (see {@link readDotenvFile}). */
  dotenv?: EnvMap;
  /** The whole `config.yml` data (sections are picked from it). */
  config?: Record<string, unknown>;
}

/**
 * A key, or a map of provider name → key.
 *
 * @example
 * ```ts
 * import type { ProviderValue } from "@bub/core/builtin";
 * const perProvider: ProviderValue = { openai: "sk-...", anthropic: "sk-ant-..." };
 * const single: ProviderValue = "sk-...";
 * ```
 */
export type ProviderValue = string | Record<string, string>;

/**
 * `AgentSettings`: YAML root, env prefix `BUB_`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type AgentSettings, loadAgentSettings } from "@bub/core/builtin";
 * const settings: AgentSettings = loadAgentSettings({ config: { max_tokens: 2048 } });
 * assert.equal(settings.max_tokens, 2048);
 * ```
 */
export interface AgentSettings {
  /** `provider:model`. @default "openrouter:openrouter/free" */
  model: string;
  /** Fallback models, used only with the default model. @default null */
  fallback_models: string[] | null;
  /** API key, or provider → key. @default null */
  api_key: ProviderValue | null;
  /** API base URL, or provider → URL. @default null */
  api_base: ProviderValue | null;
  /** The issuer of `bub login openai` (a ChatGPT login). @default "https://auth.openai.com" */
  openai_auth_base: string;
  /** Steps per turn, > 0. @default Number.MAX_SAFE_INTEGER (unlimited) */
  max_steps: number;
  /** `max_tokens` of every call. @default 16384 */
  max_tokens: number;
  /**
   * The model's context window in tokens, for the editor's context meter (`bub acp` sends
   * `usage_update` only when it is known). Env `BUB_CONTEXT_WINDOW`. @default null
   */
  context_window: number | null;
  /** Per model call, including stream consumption; null for none. @default 600 */
  model_timeout_seconds: number | null;
  /** Fails a model call when the provider sends no bytes this long; null for none. @default 120 */
  model_stall_timeout_seconds: number | null;
  /**
   * The most UTF-8 bytes of text, reasoning and tool-call arguments one model call may stream;
   * past it the stream is stopped and the call fails. ≥ 1024. Env `BUB_MAX_ANSWER_BYTES`.
   * @default 8388608 (8 MiB)
   */
  max_answer_bytes: number;
  /** Extra provider-client constructor arguments. @default {} */
  client_args: Record<string, unknown>;
  /** Extra per-call arguments. @default {} */
  completion_args: Record<string, unknown>;
  /** 0–2; validated, unused. @default 0 */
  verbose: number;
  /**
   * Bytes of a command's output kept in memory (head and tail); the rest streams to a spill
   * file under the OS tmpdir named in the result. ≥ 1024. Env `BUB_TOOL_OUTPUT_MAX_BYTES`.
   * @default 4194304 (4 MiB)
   */
  tool_output_max_bytes: number;
  /**
   * Comma-separated names of secret-named variables (`BUB_*_KEY`, `BUB_*_TOKEN`, `BUB_*SECRET*`,
   * `BUB_*PASSWORD*`, the provider keys `*_API_KEY`, `AWS_SECRET_ACCESS_KEY`...) that tool
   * processes keep; every other one is removed from their environment.
   * Env `BUB_TOOL_ENV_PASSTHROUGH`. @default null
   */
  tool_env_passthrough: string | null;
  /** Vertex AI: the Google Cloud project. Env `BUB_VERTEX_PROJECT`. @default null */
  vertex_project: string | null;
  /** Vertex AI: the location (`us-central1`, `global`...). Env `BUB_VERTEX_LOCATION`. @default null */
  vertex_location: string | null;
  /**
   * Vertex AI: a service-account JSON key file (else application default credentials).
   * Env `BUB_VERTEX_CREDENTIALS`. @default null
   */
  vertex_credentials: string | null;
  /** Vertex AI: a ready OAuth access token. Env `BUB_VERTEX_ACCESS_TOKEN`. @default null */
  vertex_access_token: string | null;
  /** Azure OpenAI: the resource name. Env `BUB_AZURE_RESOURCE_NAME`. @default null */
  azure_resource_name: string | null;
  /**
   * Azure OpenAI: the API version; null is the v1 API, a dated one calls deployment URLs.
   * Env `BUB_AZURE_API_VERSION`. @default null
   */
  azure_api_version: string | null;
  /** Amazon Bedrock: the AWS region. Env `BUB_BEDROCK_REGION`. @default null */
  bedrock_region: string | null;
  /** Amazon Bedrock: the AWS access key id. Env `BUB_BEDROCK_ACCESS_KEY_ID`. @default null */
  bedrock_access_key_id: string | null;
  /** Amazon Bedrock: the AWS secret access key. Env `BUB_BEDROCK_SECRET_ACCESS_KEY`. @default null */
  bedrock_secret_access_key: string | null;
  /** Amazon Bedrock: an AWS session token. Env `BUB_BEDROCK_SESSION_TOKEN`. @default null */
  bedrock_session_token: string | null;
}

/**
 * `ChannelSettings`: YAML root, env prefix `BUB_`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ChannelSettings, loadChannelSettings } from "@bub/core/builtin";
 * const settings: ChannelSettings = loadChannelSettings({ env: { BUB_STREAM_OUTPUT: "true" } });
 * assert.equal(settings.stream_output, true);
 * ```
 */
export interface ChannelSettings {
  /** `all`, or comma-separated names (`!name` excludes). @default "all" */
  enabled_channels: string;
  /** Quiet time before a burst of messages is handled. @default 1.0 */
  debounce_seconds: number;
  /** Longest wait for a burst to end. @default 10.0 */
  max_wait_seconds: number;
  /** How long a chat stays active after Bub was addressed. @default 60.0 */
  active_time_window: number;
  /** Stream model output to channels as it arrives. @default false */
  stream_output: boolean;
}

/**
 * `TelegramSettings`: YAML section `telegram`, env prefix `BUB_TELEGRAM_`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadTelegramSettings, type TelegramSettings } from "@bub/core/builtin";
 * const settings: TelegramSettings = loadTelegramSettings({ env: { BUB_TELEGRAM_TOKEN: "123:abc" } });
 * assert.equal(settings.token, "123:abc");
 * ```
 */
export interface TelegramSettings {
  /** Bot token; empty disables the channel. @default "" */
  token: string;
  /** Comma-separated user ids or usernames; null = everyone. @default null */
  allow_users: string | null;
  /** Comma-separated chat ids; null = every chat. @default null */
  allow_chats: string | null;
  /** Proxy URL (`http://…`, `socks5://…`). @default null */
  proxy: string | null;
  /** Bot API root, e.g. a local Bot API server. @default null (Telegram's) */
  api_root: string | null;
}

/**
 * `SpillSettings`: YAML section `spill`, env prefix `BUB_SPILL_`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadSpillSettings, type SpillSettingsSection } from "@bub/core/builtin";
 * const settings: SpillSettingsSection = loadSpillSettings({ config: { spill: { threshold: 4096 } } });
 * assert.equal(settings.threshold, 4096);
 * ```
 */
export interface SpillSettingsSection {
  /** Tool results longer than this many characters are spilled; ≥ 0. @default 4096 */
  threshold: number;
}

/**
 * `TapeStoreSettings`: YAML root, env `BUB_TAPE_STORE`, `BUB_TAPE_STORE_RETRY_SECONDS`,
 * `BUB_CLUSTER_*`.
 */
export interface TapeStoreSettings {
  /**
   * `file` (`<home>/tapes`), `memory`, `sqlite:<path>` (relative to the home) or a
   * `postgres://` / `postgresql://` URL. @default "file"
   */
  tape_store: string;
  /**
   * With a PostgreSQL store, how long a `bub gateway` instance's lease on a session lasts
   * without renewal (a dead instance's sessions are taken over after it), in seconds.
   * @default 15
   */
  cluster_lease_seconds: number;
  /** With a PostgreSQL store, how often an instance polls the inbox besides NOTIFY. @default 0.5 */
  cluster_poll_seconds: number;
  /**
   * With a PostgreSQL store, how long an idle session stays held by its instance for its next
   * message before the lease is released (at most a third of the lease); 0 releases at once.
   * @default 0
   */
  cluster_hold_idle_seconds: number;
  /**
   * How long a tape store operation retries while the store is unavailable (PostgreSQL
   * unreachable, SQLite locked, a full disk), with backoff, before it fails with an error naming
   * the store; 0 fails at once. @default 300
   */
  tape_store_retry_seconds: number;
}

/** `McpSettings`: YAML root, env prefix `BUB_`. */
export interface McpSettings {
  /** Limit of one MCP tool call; null for none. Env `BUB_MCP_TIMEOUT_SECONDS`. @default 60 */
  mcp_timeout_seconds: number | null;
  /**
   * Limit of starting one MCP server (connect and list its tools); null for none.
   * Env `BUB_MCP_STARTUP_TIMEOUT_SECONDS`. @default 30
   */
  mcp_startup_timeout_seconds: number | null;
  /**
   * The largest MCP tool result (bytes) the model gets whole; past it the result is cut to its
   * first this-many bytes of text with a note, and the whole result is written to a file under
   * the OS tmpdir named in the note. ≥ 1024. Env `BUB_MCP_MAX_RESULT_BYTES`.
   * @default 16777216 (16 MiB)
   */
  mcp_max_result_bytes: number;
}

/** `ConsoleSettings`: the web console's settings; YAML root, env prefix `BUB_`. */
export interface ConsoleSettings {
  /**
   * The largest request body the web console accepts, in bytes; a larger one gets 413 and is
   * not read past the limit. Env `BUB_CONSOLE_MAX_BODY_BYTES`. @default 1048576
   */
  console_max_body_bytes: number;
}

/** {@link SpillSettingsSection} under its first name. */
export type SpillSettings = SpillSettingsSection;

/** `SandboxSettings`: where tool commands run sandboxed; YAML root, env prefix `BUB_`. */
export interface SandboxSettings {
  /**
   * `off`: never; `remote`: sessions whose channel is not the local terminal (`bub chat` and
   * `bub run` stay on the host); `all`: every session; `required`: every session, and Bub
   * refuses to start where the sandbox cannot run. Env `BUB_SANDBOX`. @default "remote"
   */
  sandbox: "off" | "remote" | "all" | "required";
  /**
   * `off` (a private loopback only), `on` (the host's network), or the hosts a command may reach
   * (a list, or comma-separated; see `sandboxNetworkOf`). Env `BUB_SANDBOX_NETWORK`.
   * @default "off"
   */
  sandbox_network: "off" | "on" | string | readonly string[];
  /**
   * Extra host paths visible inside, comma-separated; read-only unless followed by `:rw`.
   * Env `BUB_SANDBOX_PATHS`. @default null
   */
  sandbox_paths: string | null;
  /** CPU seconds of each process; null for none. Env `BUB_SANDBOX_CPU_SECONDS`. @default 600 */
  sandbox_cpu_seconds: number | null;
  /**
   * Address space (RLIMIT_AS, not resident memory) of each process in MiB; null for none. Deno
   * needs more than 32 GiB of it to start. Env `BUB_SANDBOX_MEMORY_MB`. @default 65536
   */
  sandbox_memory_mb: number | null;
  /** Processes of one command; null for none. Env `BUB_SANDBOX_PROCESSES`. @default 512 */
  sandbox_processes: number | null;
  /** Largest file a command may write, in MiB; null for none. Env `BUB_SANDBOX_FILE_MB`. @default 1024 */
  sandbox_file_mb: number | null;
}
