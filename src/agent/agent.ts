/**
 * The builtin `Agent`: runs a turn on a fork of the session tape — comma commands eagerly, else
 * the agent loop over the model runner — and merges the fork back when the stream ends. A step
 * that held tool calls for approval records the requests and suspends the turn; `resumeTurn`
 * continues it from that step. One step's tools, system prompt and steering are
 * `_turn_steps.ts`; the comma path is `_comma_turn.ts`; the resume of a turn a crash interrupted,
 * asked before a session's first turn here, is `turn_recovery.ts`.
 *
 * @module
 */
import { resolve } from "node:path";
import type { AgentHost } from "../kernel/agent_host.ts";
import type { AsyncStreamEvents } from "../kernel/stream.ts";
import type { TurnState } from "../kernel/turn.ts";
import { workspaceFromState } from "../environment/from_state.ts";
import { InMemoryTapeStore } from "../tape/memory_store.ts";
import type { TapeStore } from "../tape/store.ts";
import { Tape } from "../tape/tape.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { Tool } from "../tools/tool.ts";
import { commaLine, runCommaTurn } from "./_comma_turn.ts";
import { type TurnSetup, TurnSteps } from "./_turn_steps.ts";
import type {
  AgentOptions,
  AgentRunSettings,
  ResumeTurnOptions,
  RunStreamOptions,
} from "./agent_options.ts";
import { BubError } from "../kernel/errors.ts";
import { agentLoop, type AgentLoopArgs } from "./agent_loop.ts";
import { approvalRequestText, recordApprovalRequests } from "./_approval_requests.ts";
import { APPROVAL_INDEX_SESSION } from "./approval_records.ts";
import { findSuspendedTurn, resumeStep } from "./turn_resume.ts";
import { ModelRunner } from "./model_runner.ts";
import { FirstTurnRecovery, recordedOrigin, recoverTurn, TURN_RESUMED } from "./turn_recovery.ts";
import { followedBy, textEvents } from "./text_events.ts";

export type {
  AgentOptions,
  AgentRunSettings,
  CommandRunArgs,
  ResumeTurnOptions,
  RunStreamOptions,
} from "./agent_options.ts";
export { workspaceFromState };
export type { AgentHost };

/**
 * Runs turns for the builtin plugin. One agent per framework; its root tape is created on first
 * use from the tape store of the running scope (an in-memory store outside one). It sees the
 * framework only through the narrow {@link AgentHost}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mkdtempSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { BubFramework } from "@bub/core";
 * import { Agent, type ModelClient } from "@bub/core/agent";
 * import { ToolRegistry } from "@bub/core/tools";
 * const client: ModelClient = {
 *   specificationVersion: "bub.model-client.v1",
 *   async *stream(request) {
 *     yield { type: "start", provider: "test", model: request.model };
 *     yield { type: "text", delta: "hello" };
 *     yield { type: "finish", reason: "stop", rawReason: "stop" };
 *   },
 * };
 * const home = mkdtempSync(join(tmpdir(), "bub-"));
 * const bub = new BubFramework({ home, builtin: { env: { BUB_TAPE_STORE: "memory" } } });
 * bub.loadBuiltinHooks();
 * await using _ = await bub.running();
 * const agent = new Agent(bub.agentHost(), { settings: { model: "test:m" }, client, registry: new ToolRegistry() });
 * let text = "";
 * for await (const event of await agent.runStream({ sessionId: "cli:local", prompt: "hi", state: {} })) {
 *   if (event.kind === "text") text += event.data.delta;
 * }
 * assert.equal(text, "hello");
 * ```
 */
export class Agent {
  /** The host it serves (the framework). */
  readonly host: AgentHost;
  /** The model runner. */
  readonly modelRunner: ModelRunner;
  #options: AgentOptions;
  #tape: Tape | null = null;
  #steps: TurnSteps;
  #recovery = new FirstTurnRecovery();

  /**
   * Creates the object.
   *
   * @param host the framework (or any {@link AgentHost})
   * @param options settings, client, tools
   */
  constructor(host: AgentHost, options: AgentOptions) {
    this.host = host;
    this.#options = options;
    this.modelRunner = new ModelRunner(options.client, host.getAgentHooks(), options.settings);
    this.#steps = new TurnSteps(host, options, this.modelRunner);
  }

  /**
   * The host it serves.
   *
   * @deprecated use {@link host}
   */
  get framework(): AgentHost {
    return this.host;
  }

  /** The agent settings. */
  get settings(): AgentRunSettings {
    return this.#options.settings;
  }

  /** The tool registry. */
  get registry(): ToolRegistry {
    return this.#options.registry;
  }

  /** The root tape (unscoped), created once. */
  get tape(): Tape {
    if (this.#tape === null) {
      const store = this.host.getTapeStore<TapeStore>() ?? new InMemoryTapeStore();
      this.#tape = new Tape({
        store,
        context: this.host.buildTapeContext(),
        sidecars: this.host.getTapeSidecars(),
        archivePath: this.#options.archivePath ?? resolve(this.host.home, "tapes"),
      });
    }
    return this.#tape;
  }

  /** The persisted session tape of `sessionId` for a turn state. */
  sessionTape(sessionId: string, state: TurnState): Tape {
    const root = this.tape;
    return root.sessionTape(sessionId, workspaceFromState(state), root.context.with({ state }));
  }

  /** The tools of a run: all registered tools, or the allowed ones. */
  tools(allowedTools: Iterable<string> | null = null): Tool[] {
    return this.#steps.tools(allowedTools);
  }

  /** Runs one turn as an event stream (see the module doc). */
  async runStream(options: RunStreamOptions): Promise<AsyncStreamEvents> {
    const { sessionId, prompt, state } = options;
    if (!prompt || (Array.isArray(prompt) && prompt.length === 0)) {
      return textEvents("error: empty prompt", false);
    }
    if (!("session_id" in state) || state.session_id === null || state.session_id === undefined) {
      state.session_id = sessionId;
    }
    // Before the session's first turn in this process: the turn a crash interrupted, if any.
    const recovered = await this.#recovery.recover(this, {
      sessionId,
      state,
      signal: options.signal,
    });
    if (recovered !== null) return followedBy(recovered, () => this.#newTurn(options));
    return await this.#newTurn(options);
  }

  /**
   * Resumes the session's turn a crash interrupted (see `turn_recovery.ts`); null when there is
   * none. A process that starts serving a session calls it to deliver that turn's answer
   * without waiting for a message; {@link runStream} calls it before a session's first turn in
   * this process.
   */
  recoverTurn(options: {
    sessionId: string;
    state: TurnState;
    signal?: AbortSignal;
  }): Promise<AsyncStreamEvents | null> {
    options.state.session_id ??= options.sessionId;
    return recoverTurn(this, options);
  }

  async #newTurn(options: RunStreamOptions): Promise<AsyncStreamEvents> {
    const { sessionId, state } = options;
    const tape = this.sessionTape(sessionId, state);
    const fork = tape.forkTape(!sessionId.startsWith("temp/"));
    try {
      return await this.#startTurn(fork, options);
    } catch (error) {
      // Nothing started a stream that would merge the fork: merge what was written so far.
      await fork[Symbol.asyncDispose]();
      throw error;
    }
  }

  async #startTurn(fork: Tape, options: RunStreamOptions): Promise<AsyncStreamEvents> {
    const { prompt, state } = options;
    await fork.ensureBootstrapAnchor(options.sessionId);
    const line = commaLine(prompt);
    if (line !== null) {
      return await runCommaTurn(this.#options, fork, { line, state, signal: options.signal });
    }
    const allowedTools = options.allowedTools ? [...options.allowedTools] : null;
    const allowedSkills = options.allowedSkills ? [...options.allowedSkills] : null;
    const model = options.model ?? this.settings.model;
    await fork.appendEvent("loop.start", {
      model,
      prompt,
      allowed_skills: allowedSkills && allowedSkills.length > 0 ? allowedSkills : null,
      allowed_tools: allowedTools && allowedTools.length > 0 ? allowedTools : null,
      ...recordedOrigin(options.sessionId, state),
    });
    const turn = { prompt, model, allowedTools, allowedSkills };
    return this.#loop(fork, turn, state, options.signal, null);
  }

  /**
   * Continues the session's suspended turn (its last step has tool calls without results):
   * runs the calls whose outcome is `run`, uses the given results for the others (a call
   * without an outcome takes its recorded `tool.end` result), and goes on with the loop from
   * that step. Streams like {@link runStream}.
   *
   * @throws BubError (`not_found`) when the session has no suspended turn
   */
  async resumeTurn(options: ResumeTurnOptions): Promise<AsyncStreamEvents> {
    const { sessionId, state } = options;
    state.session_id ??= sessionId;
    const fork = this.sessionTape(sessionId, state).forkTape(true);
    try {
      const suspended = await findSuspendedTurn(fork);
      if (suspended === null) {
        throw new BubError(
          "not_found",
          `Cannot resume a turn of session "${sessionId}": no step waits for tool results`,
        );
      }
      if (options.resumed) await fork.appendEvent(TURN_RESUMED, { ...options.resumed });
      const turn = {
        prompt: suspended.prompt,
        model: options.model ?? suspended.model ?? this.settings.model,
        allowedTools: suspended.allowedTools,
        allowedSkills: suspended.allowedSkills,
      };
      const outcomes = new Map(Object.entries(options.outcomes));
      const run = () =>
        resumeStep({
          tape: fork,
          turn: suspended,
          outcomes,
          executor: this.modelRunner.executor,
          tools: this.#steps.view(turn.allowedTools).modelTools,
          state,
          signal: options.signal,
        });
      return this.#loop(fork, turn, state, options.signal, { step: suspended.step, run });
    } catch (error) {
      await fork[Symbol.asyncDispose]();
      throw error;
    }
  }

  #loop(
    fork: Tape,
    turn: TurnSetup,
    state: TurnState,
    signal: AbortSignal | undefined,
    resume: AgentLoopArgs["resume"] | null,
  ): AsyncStreamEvents {
    // The loop's own stream merges the fork when it closes (no second stream around it).
    return agentLoop({
      tape: fork,
      state,
      prompt: turn.prompt,
      model: turn.model,
      maxSteps: this.settings.maxSteps ?? Number.MAX_SAFE_INTEGER,
      runStep: (stepPrompt) => this.#steps.run(fork, stepPrompt, state, turn, signal),
      continuePrompt: (args) => this.host.continuePrompt(args),
      signal,
      onClose: () => fork[Symbol.asyncDispose](),
      commit: () => fork[Symbol.asyncDispose](),
      onSuspend: async ({ step, held }) =>
        approvalRequestText(
          await recordApprovalRequests({
            tape: fork,
            index: this.sessionTape(APPROVAL_INDEX_SESSION, state),
            state,
            step,
            held,
            approvers: this.settings.approvers,
            timeoutSeconds: this.settings.approvalTimeoutSeconds,
          }),
        ),
      ...(resume ? { resume } : {}),
    });
  }
}
