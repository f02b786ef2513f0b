/**
 * Private: the field specs of the builtin settings classes (agent, channels, Telegram, spill,
 * tape store, web console).
 *
 * @module
 */
import { isRecord } from "../_internal/object.ts";
import { type ParseResult, s as z, type Schema } from "../_internal/schema.ts";
import {
  DEFAULT_MAX_ANSWER_BYTES,
  DEFAULT_MODEL_STALL_TIMEOUT_SECONDS,
  DEFAULT_MODEL_TIMEOUT_SECONDS,
  MIN_MAX_ANSWER_BYTES,
} from "../agent/model_runner.ts";
import type { FieldSpec, SectionSpec } from "./_settings_fields.ts";
import { BubError } from "../kernel/errors.ts";
import { parseAllowlist } from "../environment/egress_proxy.ts";
import type { SandboxNetwork } from "../environment/sandbox_profile.ts";
import { DEFAULT_MCP_MAX_RESULT_BYTES } from "../tools/mcp/mcp_manager.ts";
import { parseTapeStoreChoice, TAPE_STORE_EXPECTED } from "./tape_store_setting.ts";
import { APPROVALS } from "./approval_rules.ts";

/**
 * The model used when none is configured.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_MODEL, loadAgentSettings } from "@bub/core/builtin";
 * assert.equal(loadAgentSettings({ env: {} }).model, DEFAULT_MODEL);
 * ```
 */
export const DEFAULT_MODEL = "openrouter:openrouter/free";

function str(): Schema<unknown> {
  return z.string();
}
function int(): Schema<number> {
  return z.int({ error: "must be an integer" });
}
function num(): Schema<number> {
  return z.number({ error: "must be a number" });
}
function providerValue(): Schema<unknown> {
  return z.union([z.string(), z.record(z.string(), z.string())]).nullable();
}
function object(): Schema<unknown> {
  return z.record(z.string(), z.unknown());
}
function textList(): Schema<unknown> {
  return z.string().nullable();
}
/** A positive number of seconds, or null (no limit). */
function seconds(): Schema<unknown> {
  return num().gt(0, { error: "must be greater than 0" }).nullable();
}
const MAP_OR_STRING = "a string or a map of provider names to strings, or null";

/** A field whose schema is built by `schema` on first use. */
function field(
  key: string,
  type: FieldSpec["type"],
  schema: () => Schema<unknown>,
  expected: string,
  fallback: unknown,
  extra: Partial<FieldSpec> = {},
): FieldSpec {
  const fresh = (): unknown => (isRecord(fallback) ? { ...fallback } : fallback);
  let built: Schema<unknown> | undefined;
  return {
    key,
    type,
    get schema(): Schema<unknown> {
      return built ??= schema();
    },
    expected,
    fallback: fresh,
    ...extra,
  };
}

/** Spec of the agent settings. */
export const AGENT: SectionSpec = {
  section: "",
  prefix: "BUB_",
  fields: [
    field("model", "string", str, "a string", DEFAULT_MODEL),
    field(
      "fallback_models",
      "json",
      () => z.array(z.string()).nullable(),
      "a list of strings (JSON in env), or null",
      null,
    ),
    field("api_key", "json", providerValue, MAP_OR_STRING, null, { mergeMaps: true }),
    field("api_base", "json", providerValue, MAP_OR_STRING, null, { mergeMaps: true }),
    field(
      "max_steps",
      "int",
      () => int().gt(0, { error: "must be greater than 0" }),
      "an integer",
      Number.MAX_SAFE_INTEGER,
    ),
    field(
      "max_tokens",
      "int",
      () => int().gt(0, { error: "must be greater than 0" }),
      "an integer",
      16384,
    ),
    field(
      "model_timeout_seconds",
      "float",
      seconds,
      "a number greater than 0, or null",
      DEFAULT_MODEL_TIMEOUT_SECONDS,
    ),
    field(
      "model_stall_timeout_seconds",
      "float",
      seconds,
      "a number greater than 0, or null",
      DEFAULT_MODEL_STALL_TIMEOUT_SECONDS,
    ),
    field(
      "max_answer_bytes",
      "int",
      () => int().min(MIN_MAX_ANSWER_BYTES, { error: `must be at least ${MIN_MAX_ANSWER_BYTES}` }),
      "an integer",
      DEFAULT_MAX_ANSWER_BYTES,
    ),
    field("client_args", "json", object, "a mapping (JSON in env)", {}, { nullAsEmpty: true }),
    field("completion_args", "json", object, "a mapping (JSON in env)", {}, {
      nullAsEmpty: true,
    }),
    field(
      "verbose",
      "int",
      () =>
        int().min(0, { error: "must be between 0 and 2" }).max(2, {
          error: "must be between 0 and 2",
        }),
      "an integer",
      0,
    ),
    field(
      "tool_output_max_bytes",
      "int",
      () => int().min(1024, { error: "must be at least 1024" }),
      "an integer",
      4 * 1024 * 1024,
    ),
    field(
      "tool_env_passthrough",
      "list_text",
      textList,
      "a comma-separated string of variable names, or null",
      null,
    ),
  ],
};

function nonNegative(): Schema<unknown> {
  return num().min(0, { error: "must be at least 0" });
}
/** Spec of the channels settings. */
export const CHANNELS: SectionSpec = {
  section: "",
  prefix: "BUB_",
  fields: [
    field(
      "enabled_channels",
      "list_text",
      str,
      "a string of comma-separated channel names",
      "all",
    ),
    field("debounce_seconds", "float", nonNegative, "a number", 1.0),
    field("max_wait_seconds", "float", nonNegative, "a number", 10.0),
    field("active_time_window", "float", nonNegative, "a number", 60.0),
    field("stream_output", "bool", () => z.boolean(), "a boolean", false),
  ],
};

/** Spec of the telegram settings. */
export const TELEGRAM: SectionSpec = {
  section: "telegram",
  prefix: "BUB_TELEGRAM_",
  fields: [
    field("token", "string", str, "a string", ""),
    field("allow_users", "list_text", textList, "a comma-separated string, or null", null),
    field("allow_chats", "list_text", textList, "a comma-separated string, or null", null),
    field("proxy", "string", textList, "a URL string, or null", null),
    field("api_root", "string", textList, "a URL string, or null", null),
  ],
};

/** Spec of the webhook server shared by the webhook chat platforms (YAML root, `BUB_WEBHOOK_*`). */
export const WEBHOOKS: SectionSpec = {
  section: "",
  prefix: "BUB_",
  fields: [
    field("webhook_host", "string", str, "a string", "127.0.0.1"),
    field(
      "webhook_port",
      "int",
      () =>
        int().min(0, { error: "must be at least 0" }).max(65535, {
          error: "must be at most 65535",
        }),
      "an integer",
      8788,
    ),
  ],
};

/** Spec of the Slack channel settings (YAML `channels: { slack: … }`, `BUB_SLACK_*`). */
export const SLACK: SectionSpec = {
  section: "channels.slack",
  prefix: "BUB_SLACK_",
  fields: [
    field("bot_token", "string", str, "a string", ""),
    field("signing_secret", "string", str, "a string", ""),
    field("allow_users", "list_text", textList, "a comma-separated string, or null", null),
    field("allow_channels", "list_text", textList, "a comma-separated string, or null", null),
    field("api_base", "string", textList, "a URL string, or null", null),
  ],
};

/** Spec of the GitHub channel settings (YAML `channels: { github: … }`, `BUB_GITHUB_*`). */
export const GITHUB: SectionSpec = {
  section: "channels.github",
  prefix: "BUB_GITHUB_",
  fields: [
    field("token", "string", str, "a string", ""),
    field("webhook_secret", "string", str, "a string", ""),
    field("user_name", "string", str, "a string", "bub"),
    field("allow_users", "list_text", textList, "a comma-separated string, or null", null),
    field("allow_channels", "list_text", textList, "a comma-separated string, or null", null),
    field("api_base", "string", textList, "a URL string, or null", null),
  ],
};

/** Spec of the spill settings. */
export const SPILL: SectionSpec = {
  section: "spill",
  prefix: "BUB_SPILL_",
  fields: [
    field(
      "threshold",
      "int",
      () => int().min(0, { error: "must be at least 0" }),
      "an integer",
      4096,
    ),
  ],
};

/** A number of seconds > 0 (never null). */
function positiveSeconds(): Schema<unknown> {
  return num().gt(0, { error: "must be greater than 0" });
}

/** A string naming a tape store (see `tape_store_setting.ts`). */
function tapeStoreSchema(): Schema<unknown> {
  const base = z.string();
  const schema = Object.create(base) as Schema<unknown>;
  schema.safeParse = (value: unknown): ParseResult<unknown> => {
    const result = base.safeParse(value);
    if (!result.success || parseTapeStoreChoice(result.data) !== null) return result;
    const message = `must be ${TAPE_STORE_EXPECTED}`;
    return { success: false, error: { issues: [{ code: "custom", message, path: [] }] } };
  };
  return schema;
}

/** Spec of the tape store setting (YAML root, `BUB_TAPE_STORE`). */
export const TAPE: SectionSpec = {
  section: "",
  prefix: "BUB_",
  fields: [
    field(
      "tape_store",
      "string",
      tapeStoreSchema,
      "a string",
      "file",
    ),
    field("cluster_lease_seconds", "float", positiveSeconds, "a number greater than 0", 15),
    field("cluster_poll_seconds", "float", positiveSeconds, "a number greater than 0", 0.5),
    field("cluster_hold_idle_seconds", "float", nonNegative, "a number", 0),
    field("tape_store_retry_seconds", "float", nonNegative, "a number", 300),
  ],
};

/** Spec of the MCP settings (the servers themselves are `mcp_servers:`, see `tools/mcp/config.ts`). */
export const MCP: SectionSpec = {
  section: "",
  prefix: "BUB_",
  fields: [
    field("mcp_timeout_seconds", "float", seconds, "a number greater than 0, or null", 60),
    field("mcp_startup_timeout_seconds", "float", seconds, "a number greater than 0, or null", 30),
    field(
      "mcp_max_result_bytes",
      "int",
      () => int().min(1024, { error: "must be at least 1024" }),
      "an integer",
      DEFAULT_MCP_MAX_RESULT_BYTES,
    ),
  ],
};

/** Spec of the web console settings (YAML root, `BUB_CONSOLE_*`). */
export const CONSOLE: SectionSpec = {
  section: "",
  prefix: "BUB_",
  fields: [
    field(
      "console_max_body_bytes",
      "int",
      () => int().min(1, { error: "must be at least 1" }),
      "an integer",
      1024 * 1024,
    ),
  ],
};

/** A schema over `base` whose values must also pass `check` (a message, or null when good). */
function checked(base: Schema<unknown>, check: (value: unknown) => string | null): Schema<unknown> {
  const schema = Object.create(base) as Schema<unknown>;
  schema.safeParse = (value: unknown): ParseResult<unknown> => {
    const result = base.safeParse(value);
    if (!result.success) return result;
    const message = check(result.data);
    if (message === null) return result;
    return { success: false, error: { issues: [{ code: "custom", message, path: [] }] } };
  };
  return schema;
}

/** The values of `sandbox`. */
export const SANDBOX_MODES = ["off", "remote", "all", "required"] as const;

/**
 * The network of a `sandbox_network` value: `off`, `on`, or the hosts of a YAML list, a JSON
 * list or a comma-separated string (see `egress_proxy.ts` for what an entry may say).
 *
 * @throws BubError (config) for anything else, or a host entry that is not a host
 */
export function sandboxNetworkOf(value: unknown): SandboxNetwork {
  if (value === "off" || value === "on") return value;
  let hosts: unknown = value;
  if (typeof value === "string") {
    const text = value.trim();
    try {
      hosts = text.startsWith("[") ? JSON.parse(text) : text.split(",");
    } catch {
      hosts = null;
    }
  }
  if (!Array.isArray(hosts) || !hosts.every((host) => typeof host === "string")) {
    throw new BubError(
      "config",
      `sandbox_network: must be off, on, or a list of hosts, got ${JSON.stringify(value)}`,
    );
  }
  const allow = hosts.map((host) => host.trim()).filter((host) => host !== "");
  if (allow.length === 0) {
    throw new BubError("config", "sandbox_network: an empty host list (use off for no network)");
  }
  parseAllowlist(allow);
  return { allow };
}

function sandboxNetworkSchema(): Schema<unknown> {
  return checked(z.unknown(), (value) => {
    try {
      sandboxNetworkOf(value);
      return null;
    } catch (error) {
      return (error as Error).message.replace(/^sandbox_network: /, "");
    }
  });
}

function positiveIntOrNull(): Schema<unknown> {
  return int().gt(0, { error: "must be greater than 0" }).nullable();
}

/** Spec of the sandbox settings (YAML root, `BUB_SANDBOX*`). */
export const SANDBOX: SectionSpec = {
  section: "",
  prefix: "BUB_",
  fields: [
    field(
      "sandbox",
      "string",
      () =>
        checked(
          z.string(),
          (value) =>
            (SANDBOX_MODES as readonly unknown[]).includes(value)
              ? null
              : `must be one of ${SANDBOX_MODES.join(", ")}`,
        ),
      `one of ${SANDBOX_MODES.join(", ")}`,
      // Every session not of the local terminal; a Telegram session's sandbox reaches its Bot API
      // (environment_hooks.ts), so its skill script answers (tests/e2e/gateway_telegram.test.ts).
      "remote",
    ),
    field(
      "sandbox_network",
      "string",
      sandboxNetworkSchema,
      "off, on, or a list of hosts (a YAML list, or comma-separated)",
      "off",
    ),
    field(
      "sandbox_paths",
      "list_text",
      textList,
      "a comma-separated string of paths (`:rw` after a path binds it read-write), or null",
      null,
    ),
    field("sandbox_cpu_seconds", "float", seconds, "a number greater than 0, or null", 600),
    field("sandbox_memory_mb", "int", positiveIntOrNull, "an integer, or null", 65536),
    field("sandbox_processes", "int", positiveIntOrNull, "an integer, or null", 512),
    field("sandbox_file_mb", "int", positiveIntOrNull, "an integer, or null", 1024),
  ],
};

/** Every settings section Bub reads (the YAML root's and the named ones), for checks over all. */
export const SETTINGS_SPECS: readonly SectionSpec[] = [
  AGENT,
  APPROVALS,
  CHANNELS,
  CONSOLE,
  MCP,
  SANDBOX,
  SPILL,
  TAPE,
  TELEGRAM,
  WEBHOOKS,
  SLACK,
  GITHUB,
];
