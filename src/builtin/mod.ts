/**
 * The builtin plugin: the {@link BubFramework} runtime pieces, settings, onboarding, comma
 * commands and the CLI I/O types.
 *
 * @example Settings from the environment and config.yml
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadAgentSettings } from "@bub/core/builtin";
 * const settings = loadAgentSettings({ env: { BUB_MAX_STEPS: "5" }, config: { model: "openai:gpt-4o" } });
 * assert.equal(settings.model, "openai:gpt-4o");
 * assert.equal(settings.max_steps, 5);
 * ```
 *
 * @module
 */
export { BubFramework } from "./framework.ts";
export { type BuiltinPlugin, createBuiltinPlugin } from "./plugin.ts";
export type { BubHost } from "./host.ts";
export { type BubFrameworkOptions, type DemoModel } from "./framework.ts";
export { BuiltinRuntime, type BuiltinRuntimeOptions } from "./runtime.ts";
export { CliExit, type CliOutput } from "./cli_io.ts";
export { LinePrompter, PromptAborted, type Prompter } from "./onboard.ts";
export { COMMAND_RUN_ID, runCommaCommand, type RunCommaCommandOptions } from "./comma_command.ts";
export {
  approvalAsk,
  type ApprovalRule,
  type ApprovalSettings,
  compileApprovalRules,
  type CompiledApprovalRule,
  loadApprovalSettings,
} from "./approval_rules.ts";
export {
  type AgentSettings,
  type ChannelSettings,
  DEFAULT_MODEL,
  defaultConfigFile,
  type EnvMap,
  expandHome,
  getConfigValue,
  loadAgentSettings,
  loadChannelSettings,
  loadSpillSettings,
  loadTelegramSettings,
  type ProviderValue,
  readDotenvFile,
  registerBuiltinConfigSections,
  resolveBubHome,
  type SettingsSources,
  type SpillSettingsSection,
  type TelegramSettings,
} from "./settings.ts";
