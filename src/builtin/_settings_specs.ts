/**
 * Private: the field specs of the builtin settings (agent, spill, tape store, MCP, web console)
 * and the list of every section; the channel and sandbox sections are in their own files.
 *
 * @module
 */
import { s as z, type Schema } from "../_internal/schema.ts";
import {
  DEFAULT_MAX_ANSWER_BYTES,
  DEFAULT_MODEL_STALL_TIMEOUT_SECONDS,
  DEFAULT_MODEL_TIMEOUT_SECONDS,
  MIN_MAX_ANSWER_BYTES,
} from "../agent/model_runner.ts";
import type { SectionSpec } from "./_settings_fields.ts";
import { DEFAULT_OPENAI_AUTH_BASE } from "../agent/providers/openai_token_grants.ts";
import {
  checked,
  field,
  int,
  intAtLeastField,
  MAP_OR_STRING,
  nonNegative,
  object,
  positiveInt,
  positiveIntOrNull,
  positiveSeconds,
  providerValue,
  seconds,
  str,
  textField,
  textList,
} from "./_settings_schemas.ts";
import { CHANNELS, CHAT_PLATFORM_SPECS, TELEGRAM, WEBHOOKS } from "./_channel_settings_specs.ts";
import { SANDBOX } from "./_sandbox_settings_specs.ts";
export { SANDBOX, SANDBOX_MODES, sandboxNetworkOf } from "./_sandbox_settings_specs.ts";
import { DEFAULT_MCP_MAX_RESULT_BYTES } from "../tools/mcp/mcp_manager.ts";
import { parseTapeStoreChoice, TAPE_STORE_EXPECTED } from "./tape_store_setting.ts";
import { APPROVALS } from "./approval_rules.ts";
import { CLOUD_PROVIDER_FIELDS } from "./_provider_settings_specs.ts";

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

/** Spec of the agent settings. */
export const AGENT: SectionSpec = {
  section: "",
  prefix: "BUB_",
  fields: [
    textField("model", DEFAULT_MODEL),
    field(
      "fallback_models",
      "json",
      () => z.array(z.string()).nullable(),
      "a list of strings (JSON in env), or null",
      null,
    ),
    field("api_key", "json", providerValue, MAP_OR_STRING, null, { mergeMaps: true }),
    field("api_base", "json", providerValue, MAP_OR_STRING, null, { mergeMaps: true }),
    textField("openai_auth_base", DEFAULT_OPENAI_AUTH_BASE),
    field("max_steps", "int", positiveInt, "an integer", Number.MAX_SAFE_INTEGER),
    field("max_tokens", "int", positiveInt, "an integer", 16384),
    field("context_window", "int", positiveIntOrNull, "an integer greater than 0, or null", null),
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
    intAtLeastField("max_answer_bytes", MIN_MAX_ANSWER_BYTES, DEFAULT_MAX_ANSWER_BYTES),
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
    intAtLeastField("tool_output_max_bytes", 1024, 4 * 1024 * 1024),
    field(
      "tool_env_passthrough",
      "list_text",
      textList,
      "a comma-separated string of variable names, or null",
      null,
    ),
    ...CLOUD_PROVIDER_FIELDS,
  ],
};

/** Spec of the spill settings. */
export const SPILL: SectionSpec = {
  section: "spill",
  prefix: "BUB_SPILL_",
  fields: [
    intAtLeastField("threshold", 0, 4096),
  ],
};

/** A string naming a tape store (see `tape_store_setting.ts`). */
function tapeStoreSchema(): Schema<unknown> {
  return checked(
    str(),
    (value) =>
      parseTapeStoreChoice(String(value)) !== null ? null : `must be ${TAPE_STORE_EXPECTED}`,
  );
}

/** Spec of the tape store setting (YAML root, `BUB_TAPE_STORE`). */
export const TAPE: SectionSpec = {
  section: "",
  prefix: "BUB_",
  fields: [
    field("tape_store", "string", tapeStoreSchema, "a string", "file"),
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
    intAtLeastField("mcp_max_result_bytes", 1024, DEFAULT_MCP_MAX_RESULT_BYTES),
  ],
};

/** Spec of the web console settings (YAML root, `BUB_CONSOLE_*`). */
export const CONSOLE: SectionSpec = {
  section: "",
  prefix: "BUB_",
  fields: [intAtLeastField("console_max_body_bytes", 1, 1024 * 1024)],
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
  ...Object.values(CHAT_PLATFORM_SPECS),
];
