/**
 * The builtin plugin's shared runtime: settings (validated when first needed), the agent, the
 * tool registry and the shell manager.
 *
 * @module
 */
import { join } from "node:path";
import process from "node:process";
import { getLogger } from "../_internal/log.ts";
import { registerSecretsOf } from "../_internal/secrets.ts";
import { Agent } from "../agent/agent.ts";
import type { ModelClient } from "../agent/model_client.ts";
import { ShellManager } from "../environment/shell_manager.ts";
import type { KernelFramework } from "../kernel/framework.ts";
import type { Skill } from "../skills/skill.ts";
import { SkillsCache } from "../skills/skills_cache.ts";
import type { TurnState } from "../kernel/turn.ts";
import { skillReferences, skillsPromptFor } from "../skills/prompt.ts";
import { ToolRegistry } from "../tools/registry.ts";
import type { Tool } from "../tools/tool.ts";
import { registerBuiltinTools } from "../tools/builtin/mod.ts";
import { parseMcpServers } from "../tools/mcp/config.ts";
import { McpManager, type McpManagerOptions } from "../tools/mcp/mcp_manager.ts";
import { LazyProviderModelClient } from "./lazy_model_client.ts";
import { cloudSettingsOf } from "./_provider_settings_specs.ts";
import { misspeltSettings } from "./misspelt_settings.ts";
import { type ApprovalSettings, loadApprovalSettings } from "./approval_rules.ts";
import {
  type AgentSettings,
  getConfigValue,
  loadAgentSettings,
  loadMcpSettings,
  loadSpillSettings,
  loadTapeStoreSettings,
  registerBuiltinConfigSections,
  type SettingsSources,
} from "./settings.ts";

/**
 * Options of {@link BuiltinRuntime}.
 *
 * @example
 * ```ts
 * import { BubFramework } from "@bub/core";
 * import type { BuiltinRuntimeOptions } from "@bub/core/builtin";
 * const builtin: BuiltinRuntimeOptions = { env: { BUB_MODEL: "openai:gpt-4o-mini", BUB_MAX_STEPS: "5" } };
 * const bub = new BubFramework({ builtin });
 * ```
 */
export interface BuiltinRuntimeOptions {
  /** The model client; default a provider client from the settings. */
  client?: ModelClient;
  /** The environment variables settings read. Default `process.env`. */
  env?: Record<string, string | undefined>;
}

/**
 * Lazily built pieces of the builtin plugin, one per framework.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BubFramework } from "@bub/core";
 * import { BuiltinRuntime } from "@bub/core/builtin";
 * const runtime = new BuiltinRuntime(new BubFramework(), { env: { BUB_MAX_STEPS: "7" } });
 * assert.equal(runtime.settings.max_steps, 7);
 * ```
 */
export class BuiltinRuntime {
  /** The framework. */
  readonly framework: KernelFramework;
  /** The builtin tools (and any a plugin adds). */
  readonly registry: ToolRegistry = new ToolRegistry();
  /** The shell runtime. */
  readonly shells: ShellManager = new ShellManager({
    outputMaxBytes: () => this.settings.tool_output_max_bytes,
  });
  /** The MCP servers of `mcp_servers:` (started by the builtin lifespan). */
  readonly mcp: McpManager = new McpManager({
    servers: () => parseMcpServers(this.framework.config),
    env: () => this.sources.env ?? {},
    callTimeoutSeconds: () => loadMcpSettings(this.sources).mcp_timeout_seconds,
    startupTimeoutSeconds: () => loadMcpSettings(this.sources).mcp_startup_timeout_seconds,
    maxResultBytes: () => loadMcpSettings(this.sources).mcp_max_result_bytes,
    driverFor: (server) => this.mcpDriverFor?.(server) ?? Promise.resolve(null),
  });
  /** Where a stdio MCP server runs (the builtin plugin sets its sandbox); null: the host. */
  mcpDriverFor: McpManagerOptions["driverFor"] | null = null;
  #options: BuiltinRuntimeOptions;
  #settings: AgentSettings | null = null;
  #agent: Agent | null = null;
  #overrides: Record<string, string> | null = null;

  /**
   * Creates the object.
   *
   * @param framework the framework
   * @param options client and environment overrides
   */
  constructor(framework: KernelFramework, options: BuiltinRuntimeOptions = {}) {
    this.framework = framework;
    this.#options = options;
    // Onboarding (`collectOnboardConfig`) and `saveConfigFile` validate the builtin sections.
    registerBuiltinConfigSections();
    this.#registerSecrets();
    registerBuiltinTools(this.registry, {
      shells: this.shells,
      configLookup: (path) => this.configLookup(path),
      quitSession: (sessionId) => framework.quitViaChannelRouter(sessionId),
      helpTools: () => this.mcp.tools(),
    });
    // Later sources win: a plugin's tool replaces an MCP tool of the same name.
    this.registry.addSource(() => this.mcp.tools());
    this.registry.addSource(() => framework.pluginManager.tools() as readonly Tool[]);
  }

  /** Where settings come from: the environment and the framework's config file. */
  get sources(): SettingsSources {
    const env = this.#options.env ?? process.env;
    return {
      env: this.#overrides ? { ...env, ...this.#overrides } : env,
      config: this.framework.config,
    };
  }

  /**
   * Overrides environment variables for the settings (not for tools), e.g. `bub run --demo`'s
   * `BUB_MODEL` and `BUB_API_BASE`. The settings and the agent are built again on next use.
   */
  overrideEnv(variables: Record<string, string>): void {
    this.#overrides = { ...this.#overrides, ...variables };
    this.#settings = null;
    this.#approvals = null;
    this.#agent = null;
  }

  /** The agent settings (validated on first use). */
  get settings(): AgentSettings {
    if (this.#settings === null) {
      this.#registerSecrets();
      this.#settings = loadAgentSettings(this.sources);
      this.#warnMisspelt();
    }
    return this.#settings;
  }

  #warned = false;

  /** Says once which `config.yml` keys look misspelt (they are ignored). */
  #warnMisspelt(): void {
    if (this.#warned) return;
    this.#warned = true;
    for (const { key, meant } of misspeltSettings(this.framework.config)) {
      getLogger(["bub", "builtin"]).warn(
        "config.yml: unknown setting {key} is ignored; did you mean {meant}?",
        { key, meant },
      );
    }
  }

  /**
   * Adds the secrets of the settings sources (config.yml's secret-shaped keys, the environment's
   * secret-named variables) to the list every sink redacts.
   */
  #registerSecrets(): void {
    try {
      registerSecretsOf(this.sources);
    } catch {
      // An unreadable config file fails where it is read; it has no secrets to add.
    }
  }

  #approvals: ApprovalSettings | null = null;

  /** The approval settings (validated on first use). */
  get approvalSettings(): ApprovalSettings {
    return this.#approvals ??= loadApprovalSettings(this.sources);
  }

  /** The spill threshold setting. */
  spillThreshold(): number {
    return loadSpillSettings(this.sources).threshold;
  }

  /** The `tape_store` setting (`BUB_TAPE_STORE`). */
  tapeStoreSetting(): string {
    return loadTapeStoreSettings(this.sources).tape_store;
  }

  /** The `tape_store_retry_seconds` setting (`BUB_TAPE_STORE_RETRY_SECONDS`). */
  tapeStoreRetrySeconds(): number {
    return loadTapeStoreSettings(this.sources).tape_store_retry_seconds;
  }

  /** A `${config.*}` lookup for skill bodies. */
  configLookup = (path: string): unknown => getConfigValue(path, this.sources);

  /** Skills across turns, revalidated by one stat per root and per `SKILL.md` each turn. */
  #skillsCache = new SkillsCache();
  /** Skills checked once per turn: later steps of the turn (same state) reuse them. */
  #turnSkills = new WeakMap<TurnState, { workspace: string; skills: readonly Skill[] }>();
  /** The last `<available_skills>` block without expanded skills, with what it was built from. */
  #skillsBlock: { skills: readonly Skill[]; allowed: string; text: string } | null = null;

  #skillsOfTurn(state: TurnState, workspace: string): readonly Skill[] {
    const cached = this.#turnSkills.get(state);
    if (cached !== undefined && cached.workspace === workspace) return cached.skills;
    const skills = this.#skillsCache.discover({ workspace });
    this.#turnSkills.set(state, { workspace, skills });
    return skills;
  }

  /** The skills block of a step; reused while the skills and the allowed set are the same. */
  #skillsPrompt(skills: readonly Skill[], promptText: string, allowed: string[] | null): string {
    // A `$name` reference expands a skill body (config values, files): not cached.
    if (promptText.includes("$") && skillReferences(promptText).size > 0) {
      return skillsPromptFor(skills, promptText, {
        allowedSkills: allowed,
        config: this.configLookup,
      });
    }
    const allowedKey = allowed === null ? "\0all" : allowed.join("\0");
    const block = this.#skillsBlock;
    if (block !== null && block.skills === skills && block.allowed === allowedKey) {
      return block.text;
    }
    const text = skillsPromptFor(skills, "", { allowedSkills: allowed, config: this.configLookup });
    this.#skillsBlock = { skills, allowed: allowedKey, text };
    return text;
  }

  /** The agent, created on first use. */
  get agent(): Agent {
    if (this.#agent === null) {
      const settings = this.settings;
      const approvals = this.approvalSettings;
      const client = this.#options.client ?? new LazyProviderModelClient({
        apiKey: settings.api_key,
        apiBase: settings.api_base,
        clientArgs: settings.client_args,
        cloud: cloudSettingsOf(settings),
        // `bub login openai` (see agent/providers/openai_auth.ts): `<BUB_HOME>/auth/openai.json`.
        openaiAuth: {
          file: join(this.framework.home, "auth", "openai.json"),
          issuer: settings.openai_auth_base,
        },
      });
      this.#agent = new Agent(this.framework.agentHost(), {
        settings: {
          model: settings.model,
          fallbackModels: settings.fallback_models,
          maxTokens: settings.max_tokens,
          maxSteps: settings.max_steps,
          modelTimeoutSeconds: settings.model_timeout_seconds,
          modelStallTimeoutSeconds: settings.model_stall_timeout_seconds,
          maxAnswerBytes: settings.max_answer_bytes,
          completionArgs: settings.completion_args,
          approvers: approvals.approvers,
          approvalTimeoutSeconds: approvals.timeoutSeconds,
        },
        client,
        registry: this.registry,
        // Comma commands (`,help`, `,tape.info`, ...) are imported when the first one runs.
        runCommand: async (args) =>
          (await import("./comma_command.ts")).runCommaCommand({
            ...args,
            registry: this.registry,
          }),
        skillsPrompt: ({ promptText, state, allowedSkills }) => {
          const workspace = typeof state._runtime_workspace === "string"
            ? state._runtime_workspace
            : this.framework.workspace;
          return this.#skillsPrompt(
            this.#skillsOfTurn(state, workspace),
            promptText,
            allowedSkills,
          );
        },
      });
    }
    return this.#agent;
  }
}
