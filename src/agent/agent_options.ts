/**
 * The options of the builtin `Agent`: its settings, what a comma command runner receives, and
 * the options of a turn (`runStream`) and of a resumed turn (`resumeTurn`).
 *
 * @module
 */
import type { Prompt, TurnState } from "../kernel/turn.ts";
import type { Tape } from "../tape/tape.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { ModelClient } from "./model_client.ts";
import type { ModelRunnerSettings } from "./model_runner.ts";
import type { CallOutcome } from "./turn_resume.ts";

/**
 * Agent settings (the builtin maps `BUB_*` settings onto them).
 *
 * @example
 * ```ts
 * import type { AgentRunSettings } from "@bub/core/agent";
 * const settings: AgentRunSettings = { model: "openai:gpt-4o", maxSteps: 10, maxTokens: 1024 };
 * ```
 */
export interface AgentRunSettings extends ModelRunnerSettings {
  /** Steps per turn. Default: unlimited. */
  maxSteps?: number;
  /** Who may decide approvals besides the session's owner (user ids). */
  approvers?: readonly string[] | null;
  /** Seconds until an approval request expires. Default 86400. */
  approvalTimeoutSeconds?: number | null;
}

/**
 * What a comma command runner receives.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore, Tape } from "@bub/core";
 * import type { CommandRunArgs } from "@bub/core/agent";
 * const echoCommand = (args: CommandRunArgs): Promise<string> => Promise.resolve(args.line.slice(1));
 * const tape = new Tape({ store: new InMemoryTapeStore() }).scoped("cli-local");
 * assert.equal(await echoCommand({ line: ",help", tape, state: {} }), "help");
 * ```
 */
export interface CommandRunArgs {
  /** The line without the leading comma. */
  line: string;
  /** The turn's tape (the fork). */
  tape: Tape;
  /** The turn state. */
  state: TurnState;
  /** Cancels the command. */
  signal?: AbortSignal;
}

/**
 * Options of {@link Agent}.
 *
 * @example
 * ```ts
 * import { BubFramework } from "@bub/core";
 * import { Agent, type AgentOptions, ProviderModelClient } from "@bub/core/agent";
 * import { ToolRegistry } from "@bub/core/tools";
 * const options: AgentOptions = {
 *   settings: { model: "openai:gpt-4o", maxSteps: 20 },
 *   client: new ProviderModelClient({ apiKey: { openai: "sk-test" } }),
 *   registry: new ToolRegistry(),
 * };
 * const agent = new Agent(new BubFramework().agentHost(), options);
 * ```
 */
export interface AgentOptions {
  /** Model settings. */
  settings: AgentRunSettings;
  /** The model client. */
  client: ModelClient;
  /** The tools. */
  registry: ToolRegistry;
  /** Where `tape.reset` archives go. Default `<host.home>/tapes`. */
  archivePath?: string;
  /** The `<available_skills>` block of a step. */
  skillsPrompt?: (
    args: { promptText: string; state: TurnState; allowedSkills: string[] | null },
  ) => string;
  /** Runs a comma command and returns its output. */
  runCommand?: (args: CommandRunArgs) => Promise<string>;
}

/**
 * Options of {@link Agent.runStream}.
 *
 * @example
 * ```ts
 * import type { RunStreamOptions } from "@bub/core/agent";
 * const options: RunStreamOptions = {
 *   sessionId: "cli:local",
 *   prompt: "List the files",
 *   state: {},
 *   allowedTools: ["bash"],
 *   signal: AbortSignal.timeout(60_000),
 * };
 * ```
 */
export interface RunStreamOptions {
  /** The session id. */
  sessionId: string;
  /** The prompt. */
  prompt: Prompt;
  /** The turn state (shared with tools and hooks). */
  state: TurnState;
  /** A model override (no fallbacks then). */
  model?: string | null;
  /** Skills visible to this run (casefolded); null = all. */
  allowedSkills?: Iterable<string> | null;
  /** Tools usable in this run (runtime or model names); null = all. */
  allowedTools?: Iterable<string> | null;
  /** Cancels the run (model call and tools). */
  signal?: AbortSignal;
}

/**
 * Options of {@link Agent.resumeTurn}.
 *
 * @example
 * ```ts
 * import type { ResumeTurnOptions } from "@bub/core/agent";
 * const options: ResumeTurnOptions = {
 *   sessionId: "telegram:42",
 *   state: {},
 *   outcomes: { call_1: { kind: "run" }, call_2: { kind: "result", result: "denied by 42: no", ok: false } },
 * };
 * ```
 */
export interface ResumeTurnOptions {
  /** The session whose turn is suspended. */
  sessionId: string;
  /** The turn state (shared with tools and hooks). */
  state: TurnState;
  /** What to do with each held call, by call id. */
  outcomes: Readonly<Record<string, CallOutcome>>;
  /** A model override. Default: the suspended turn's. */
  model?: string | null;
  /** Cancels the run (model calls and tools). */
  signal?: AbortSignal;
  /**
   * A crash recovery: the interrupted turn's fork and step, recorded first as `turn.resumed`
   * (journaled at once, committed with the resumed turn).
   */
  resumed?: { fork: string; step: number };
}
