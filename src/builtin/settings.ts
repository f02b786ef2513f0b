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
import { hasConfigSection, registerConfigSection } from "../kernel/configure.ts";
import { BubError } from "../kernel/errors.ts";
import { AGENT, CONSOLE, MCP, SANDBOX, SPILL, TAPE } from "./_settings_specs.ts";
import { CHANNELS, TELEGRAM } from "./_channel_settings_specs.ts";
import { parseMcpServers } from "../tools/mcp/config.ts";
import { loadSection, type SectionSpec, type Sourced } from "./_settings_fields.ts";
import { loadApprovalSettings } from "./approval_rules.ts";
import { CHANNELS_KEY, loadWebhookSettings, validateChannelsSection } from "./chat_settings.ts";
import type {
  AgentSettings,
  ChannelSettings,
  ConsoleSettings,
  McpSettings,
  SandboxSettings,
  SettingsSources,
  SpillSettingsSection,
  TapeStoreSettings,
  TelegramSettings,
} from "./settings_types.ts";

export type { EnvMap } from "./_settings_fields.ts";

export { DEFAULT_MODEL } from "./_settings_specs.ts";

export type {
  AgentSettings,
  ChannelSettings,
  ConsoleSettings,
  McpSettings,
  ProviderValue,
  SandboxSettings,
  SettingsSources,
  SpillSettings,
  SpillSettingsSection,
  TapeStoreSettings,
  TelegramSettings,
} from "./settings_types.ts";

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
 * import assert from "node:assert/strict";
 * import { loadAgentSettings } from "./settings.ts";
 * const settings = loadAgentSettings({
 *   env: { BUB_MODEL: "openai:gpt-4o", BUB_OPENAI_API_KEY: "sk-1" },
 *   config: { model: "anthropic:claude", max_steps: 50 },
 * });
 * assert.ok(settings.model === "openai:gpt-4o" && settings.max_steps === 50);
 * assert.ok(JSON.stringify(settings.api_key) === '{"openai":"sk-1"}');
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
 * import assert from "node:assert/strict";
 * import { loadChannelSettings } from "./settings.ts";
 * assert.ok(loadChannelSettings({ env: { BUB_STREAM_OUTPUT: "true" } }).stream_output === true);
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
 * import assert from "node:assert/strict";
 * import { loadTelegramSettings } from "./settings.ts";
 * const settings = loadTelegramSettings({ config: { telegram: { token: "123:abc" } } });
 * assert.ok(settings.token === "123:abc" && settings.allow_users === null);
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
 * import assert from "node:assert/strict";
 * import { loadSpillSettings } from "./settings.ts";
 * assert.ok(loadSpillSettings({ env: { BUB_SPILL_THRESHOLD: "100" } }).threshold === 100);
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
 * import assert from "node:assert/strict";
 * import { loadMcpSettings } from "./settings.ts";
 * assert.ok(loadMcpSettings({ env: { BUB_MCP_TIMEOUT_SECONDS: "5" } }).mcp_timeout_seconds === 5);
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
 * import assert from "node:assert/strict";
 * import { loadConsoleSettings } from "./settings.ts";
 * const settings = loadConsoleSettings({ env: { BUB_CONSOLE_MAX_BODY_BYTES: "4096" } });
 * assert.ok(settings.console_max_body_bytes === 4096);
 * ```
 */
export function loadConsoleSettings(sources: SettingsSources = {}): ConsoleSettings {
  return load<ConsoleSettings>(CONSOLE, sources);
}

/**
 * Loads the sandbox settings (YAML root, `BUB_SANDBOX*`).
 *
 * @throws {BubError} (`config`) naming each bad key, its value and its source
 * @example
 * ```ts
 * import { loadSandboxSettings } from "./settings.ts";
 * const settings = loadSandboxSettings({ env: { BUB_SANDBOX: "all" } });
 * console.assert(settings.sandbox === "all" && settings.sandbox_network === "off");
 * ```
 */
export function loadSandboxSettings(sources: SettingsSources = {}): SandboxSettings {
  return load<SandboxSettings>(SANDBOX, sources);
}

/**
 * Loads the tape store setting (YAML `tape_store`, `BUB_TAPE_STORE`).
 *
 * @throws {BubError} (`config`) naming the setting, its value and its source
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadTapeStoreSettings } from "./settings.ts";
 * const settings = loadTapeStoreSettings({ env: { BUB_TAPE_STORE: "sqlite:tapes.db" } });
 * assert.ok(settings.tape_store === "sqlite:tapes.db");
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
 * import assert from "node:assert/strict";
 * import { getConfigValue } from "./settings.ts";
 * const sources = { env: { BUB_TELEGRAM_TOKEN: "env-token" }, config: { telegram: { token: "yaml" } } };
 * assert.ok(getConfigValue("telegram.token", sources) === "env-token");
 * assert.ok(getConfigValue("nope.x", sources) === undefined);
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
  if (SANDBOX.fields.some((f) => f.key === first)) {
    return walk(loadSandboxSettings(sources), segments);
  }
  if (hasConfigSection(first)) return walk(sources.config?.[first], rest);
  return undefined;
}

export { defaultConfigFile, expandHome, readDotenvFile, resolveBubHome } from "./bub_home.ts";

/**
 * Registers validators for the builtin sections with the kernel's `registerConfigSection`: the
 * YAML root (agent and channel settings), `telegram` and `spill`. They check the YAML data only,
 * never the environment. Call once at startup (nothing is registered at import).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { registerBuiltinConfigSections } from "@bub/core/builtin";
 * registerBuiltinConfigSections(); // idempotent; config.yml sections are then validated
 * assert.doesNotThrow(() => registerBuiltinConfigSections());
 * ```
 */
export function registerBuiltinConfigSections(): void {
  registerConfigSection("", (data) => {
    loadAgentSettings({ config: data });
    loadChannelSettings({ config: data });
    loadTapeStoreSettings({ config: data });
    loadMcpSettings({ config: data });
    loadConsoleSettings({ config: data });
    loadSandboxSettings({ config: data });
    loadApprovalSettings({ config: data });
    loadWebhookSettings({ config: data });
    parseMcpServers(data);
  });
  registerConfigSection(CHANNELS_KEY, validateChannelsSection);
  registerConfigSection(
    TELEGRAM.section,
    (data) => void loadSection(TELEGRAM, { env: {}, dotenv: {}, data }),
  );
  registerConfigSection(
    SPILL.section,
    (data) => void loadSection(SPILL, { env: {}, dotenv: {}, data }),
  );
}
