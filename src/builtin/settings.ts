/**
 * Builtin settings (spec/builtin.md §12): the agent, channel, Telegram and spill settings, read
 * from the environment, `.env` values and `config.yml` data, validated with schemas.
 *
 * Precedence, highest first: environment variable → `.env` value → YAML value → (only `api_key` /
 * `api_base`) provider-scoped `BUB_<PROVIDER>_API_KEY` / `_API_BASE` variables → default. Complex
 * values in variables are JSON; the literal `null` means null. Nothing is read at import: the
 * environment and the YAML data are arguments.
 *
 * @module
 */
import { isRecord } from "../_internal/object.ts";
import { warnExposedEnvSecrets } from "../_internal/env_secrets.ts";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { expandHome } from "../_internal/home.ts";
import { hasConfigSection, parseDotenv, registerConfigSection } from "../kernel/configure.ts";
import { BubError } from "../kernel/errors.ts";
import { AGENT, CHANNELS, CONSOLE, MCP, SPILL, TAPE, TELEGRAM } from "./_settings_specs.ts";
import { parseMcpServers } from "../tools/mcp/config.ts";
import { type EnvMap, loadSection, type SectionSpec, type Sourced } from "./_settings_fields.ts";

export type { EnvMap } from "./_settings_fields.ts";

export { DEFAULT_MODEL } from "./_settings_specs.ts";

/** Where settings come from. Every member is optional; missing means empty. */
export interface SettingsSources {
  /** The process environment (pass `process.env`). */
  env?: EnvMap;
  /** Values of a `.env` file, below `env` (see {@link readDotenvFile}). */
  dotenv?: EnvMap;
  /** The whole `config.yml` data (sections are picked from it). */
  config?: Record<string, unknown>;
}

/** A key, or a map of provider name → key. */
export type ProviderValue = string | Record<string, string>;

/** `AgentSettings`: YAML root, env prefix `BUB_`. */
export interface AgentSettings {
  /** `provider:model`. @default "openrouter:openrouter/free" */
  model: string;
  /** Fallback models, used only with the default model. @default null */
  fallback_models: string[] | null;
  /** API key, or provider → key. @default null */
  api_key: ProviderValue | null;
  /** API base URL, or provider → URL. @default null */
  api_base: ProviderValue | null;
  /** Steps per turn, > 0. @default Number.MAX_SAFE_INTEGER (unlimited) */
  max_steps: number;
  /** `max_tokens` of every call. @default 16384 */
  max_tokens: number;
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
}

/** `ChannelSettings`: YAML root, env prefix `BUB_`. */
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

/** `TelegramSettings`: YAML section `telegram`, env prefix `BUB_TELEGRAM_`. */
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

/** `SpillSettings`: YAML section `spill`, env prefix `BUB_SPILL_`. */
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

function sectionData(
  spec: SectionSpec,
  config: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const data = config ?? {};
  if (spec.section === "") return data;
  const value = data[spec.section];
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) {
    throw new BubError("config", `${spec.section} must be a mapping, got ${JSON.stringify(value)}`);
  }
  return value;
}

function load<T>(
  spec: SectionSpec,
  sources: SettingsSources,
  extra?: Record<string, Sourced | undefined>,
): T {
  // A key read from the process's start-up environment is readable by every command Bub runs
  // (Linux /proc/<pid>/environ): one warning per process (the `bub` entry removes them first).
  if (sources.env) warnExposedEnvSecrets(sources.env);
  return loadSection(spec, {
    env: sources.env ?? {},
    dotenv: sources.dotenv ?? {},
    data: sectionData(spec, sources.config),
    extra,
  }) as T;
}

function providerScoped(
  sources: SettingsSources,
  suffix: "API_KEY" | "API_BASE",
): Sourced | undefined {
  const pattern = new RegExp(`^BUB_(.+)_${suffix}$`);
  const map: Record<string, string> = {};
  for (const env of [sources.dotenv ?? {}, sources.env ?? {}]) {
    for (const [name, value] of Object.entries(env)) {
      const match = pattern.exec(name);
      if (match && value !== undefined) map[match[1]!.toLowerCase()] = value;
    }
  }
  if (Object.keys(map).length === 0) return undefined;
  return { value: map, source: `BUB_<PROVIDER>_${suffix}`, fromText: false };
}

/**
 * Loads the agent settings (YAML root, `BUB_*`), merging provider-scoped
 * `BUB_<PROVIDER>_API_KEY` / `BUB_<PROVIDER>_API_BASE` variables into `api_key` / `api_base` maps.
 *
 * @throws {BubError} (`config`) naming each bad key, its value and its source
 * @example Environment over YAML
 * ```ts
 * import { loadAgentSettings } from "./settings.ts";
 * const settings = loadAgentSettings({
 *   env: { BUB_MODEL: "openai:gpt-4o", BUB_OPENAI_API_KEY: "sk-1" },
 *   config: { model: "anthropic:claude", max_steps: 50 },
 * });
 * console.assert(settings.model === "openai:gpt-4o" && settings.max_steps === 50);
 * console.assert(JSON.stringify(settings.api_key) === '{"openai":"sk-1"}');
 * ```
 */
export function loadAgentSettings(sources: SettingsSources = {}): AgentSettings {
  return load<AgentSettings>(AGENT, sources, {
    api_key: providerScoped(sources, "API_KEY"),
    api_base: providerScoped(sources, "API_BASE"),
  });
}

/**
 * Loads the channel settings (YAML root, `BUB_*`).
 *
 * @throws {BubError} (`config`) naming each bad key, its value and its source
 * @example
 * ```ts
 * import { loadChannelSettings } from "./settings.ts";
 * console.assert(loadChannelSettings({ env: { BUB_STREAM_OUTPUT: "true" } }).stream_output === true);
 * ```
 */
export function loadChannelSettings(sources: SettingsSources = {}): ChannelSettings {
  return load<ChannelSettings>(CHANNELS, sources);
}

/**
 * Loads the Telegram settings (YAML `telegram:`, `BUB_TELEGRAM_*`).
 *
 * @throws {BubError} (`config`) naming each bad key, its value and its source
 * @example
 * ```ts
 * import { loadTelegramSettings } from "./settings.ts";
 * const settings = loadTelegramSettings({ config: { telegram: { token: "123:abc" } } });
 * console.assert(settings.token === "123:abc" && settings.allow_users === null);
 * ```
 */
export function loadTelegramSettings(sources: SettingsSources = {}): TelegramSettings {
  return load<TelegramSettings>(TELEGRAM, sources);
}

/**
 * Loads the spill settings (YAML `spill:`, `BUB_SPILL_*`).
 *
 * @throws {BubError} (`config`) naming each bad key, its value and its source
 * @example
 * ```ts
 * import { loadSpillSettings } from "./settings.ts";
 * console.assert(loadSpillSettings({ env: { BUB_SPILL_THRESHOLD: "100" } }).threshold === 100);
 * ```
 */
export function loadSpillSettings(sources: SettingsSources = {}): SpillSettingsSection {
  return load<SpillSettingsSection>(SPILL, sources);
}

/**
 * Loads the MCP settings (YAML root, `BUB_*`).
 *
 * @throws {BubError} (`config`) naming each bad key, its value and its source
 * @example
 * ```ts
 * import { loadMcpSettings } from "./settings.ts";
 * console.assert(loadMcpSettings({ env: { BUB_MCP_TIMEOUT_SECONDS: "5" } }).mcp_timeout_seconds === 5);
 * ```
 */
export function loadMcpSettings(sources: SettingsSources = {}): McpSettings {
  return load<McpSettings>(MCP, sources);
}

/**
 * Loads the web console settings (YAML root, `BUB_CONSOLE_*`).
 *
 * @throws {BubError} (`config`) naming each bad key, its value and its source
 * @example
 * ```ts
 * import { loadConsoleSettings } from "./settings.ts";
 * const settings = loadConsoleSettings({ env: { BUB_CONSOLE_MAX_BODY_BYTES: "4096" } });
 * console.assert(settings.console_max_body_bytes === 4096);
 * ```
 */
export function loadConsoleSettings(sources: SettingsSources = {}): ConsoleSettings {
  return load<ConsoleSettings>(CONSOLE, sources);
}

/**
 * Loads the tape store setting (YAML `tape_store`, `BUB_TAPE_STORE`).
 *
 * @throws {BubError} (`config`) naming the setting, its value and its source
 * @example
 * ```ts
 * import { loadTapeStoreSettings } from "./settings.ts";
 * const settings = loadTapeStoreSettings({ env: { BUB_TAPE_STORE: "sqlite:tapes.db" } });
 * console.assert(settings.tape_store === "sqlite:tapes.db");
 * ```
 */
export function loadTapeStoreSettings(sources: SettingsSources = {}): TapeStoreSettings {
  return load<TapeStoreSettings>(TAPE, sources);
}

function walk(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const segment of path) {
    if (!isRecord(current) || !Object.hasOwn(current, segment)) return undefined;
    current = current[segment];
  }
  return current;
}

/**
 * Looks a dotted path up for `${config.<path>}` templates: a first segment naming a builtin
 * section (`telegram`, `spill`) reads that section's settings (environment applied); a root key
 * (`model`, `api_key.openai`, `stream_output`...) reads the agent or channel settings; a first
 * segment naming another section registered with `registerConfigSection` (e.g. by a plugin) reads
 * that section's YAML data. Any other path is unknown and gives `undefined` (spec/builtin.md §7.3,
 * §12.2): an unregistered YAML key is never rendered.
 *
 * @throws {BubError} (`config`) when the settings that hold the path are invalid
 * @example
 * ```ts
 * import { getConfigValue } from "./settings.ts";
 * const sources = { env: { BUB_TELEGRAM_TOKEN: "env-token" }, config: { telegram: { token: "yaml" } } };
 * console.assert(getConfigValue("telegram.token", sources) === "env-token");
 * console.assert(getConfigValue("nope.x", sources) === undefined);
 * ```
 */
export function getConfigValue(path: string, sources: SettingsSources = {}): unknown {
  const segments = path.split(".");
  const [first, ...rest] = segments;
  if (first === undefined || first === "") return undefined;
  if (first === TELEGRAM.section) return walk(loadTelegramSettings(sources), rest);
  if (first === SPILL.section) return walk(loadSpillSettings(sources), rest);
  if (AGENT.fields.some((f) => f.key === first)) return walk(loadAgentSettings(sources), segments);
  if (CHANNELS.fields.some((f) => f.key === first)) {
    return walk(loadChannelSettings(sources), segments);
  }
  if (MCP.fields.some((f) => f.key === first)) return walk(loadMcpSettings(sources), segments);
  if (CONSOLE.fields.some((f) => f.key === first)) {
    return walk(loadConsoleSettings(sources), segments);
  }
  if (hasConfigSection(first)) return walk(sources.config?.[first], rest);
  return undefined;
}

/** Expands a leading `~` (alone or followed by `/`) to `home`; see `_internal/home.ts`. */
export { expandHome };

/**
 * Bub's home: `BUB_HOME` with `~` expanded, else `<home>/.bub`.
 *
 * @example
 * ```ts
 * import { resolveBubHome } from "./settings.ts";
 * console.assert(resolveBubHome({ env: {}, home: "/home/a" }) === "/home/a/.bub");
 * console.assert(resolveBubHome({ env: { BUB_HOME: "~/b" }, home: "/home/a" }) === "/home/a/b");
 * ```
 */
export function resolveBubHome(options: { env?: EnvMap; home?: string } = {}): string {
  const home = options.home ?? homedir();
  const value = options.env?.BUB_HOME;
  return value ? expandHome(value, home) : join(home, ".bub");
}

/**
 * The config file: `BUB_CONFIG` (with `~` expanded), else `config.yml` in Bub's home
 * ({@link resolveBubHome}: `BUB_HOME`, else `<home>/.bub`).
 *
 * @example
 * ```ts
 * import { defaultConfigFile } from "./settings.ts";
 * console.assert(defaultConfigFile("/home/a") === "/home/a/.bub/config.yml");
 * console.assert(defaultConfigFile("/home/a", { BUB_HOME: "/srv/bub" }) === "/srv/bub/config.yml");
 * console.assert(defaultConfigFile("/home/a", { BUB_CONFIG: "~/c.yml" }) === "/home/a/c.yml");
 * ```
 */
export function defaultConfigFile(home: string = homedir(), env: EnvMap = {}): string {
  if (env.BUB_CONFIG) return expandHome(env.BUB_CONFIG, home);
  return join(resolveBubHome({ env, home }), "config.yml");
}

/** Reads a `.env` file into a map; a missing or unreadable file gives `{}`. */
export function readDotenvFile(path: string): Record<string, string> {
  try {
    return parseDotenv(readFileSync(path, "utf8"));
  } catch {
    return {};
  }
}

/**
 * Registers validators for the builtin sections with the kernel's `registerConfigSection`: the
 * YAML root (agent and channel settings), `telegram` and `spill`. They check the YAML data only,
 * never the environment. Call once at startup (nothing is registered at import).
 */
export function registerBuiltinConfigSections(): void {
  registerConfigSection("", (data) => {
    loadAgentSettings({ config: data });
    loadChannelSettings({ config: data });
    loadTapeStoreSettings({ config: data });
    loadMcpSettings({ config: data });
    loadConsoleSettings({ config: data });
    parseMcpServers(data);
  });
  registerConfigSection(
    TELEGRAM.section,
    (data) => void loadSection(TELEGRAM, { env: {}, dotenv: {}, data }),
  );
  registerConfigSection(
    SPILL.section,
    (data) => void loadSection(SPILL, { env: {}, dotenv: {}, data }),
  );
}
