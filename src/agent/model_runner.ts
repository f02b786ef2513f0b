/**
 * One model call of the agent loop: builds the request from the tape, runs the agent-loop hooks,
 * calls the provider (with fallbacks), streams events, executes tool calls and records the call on
 * the tape.
 *
 * @module
 */
import type { AgentHooks } from "../kernel/agent_hooks.ts";
import { isCancellation } from "../kernel/agent_hooks.ts";
import { AsyncStreamEvents, type StreamEvent, StreamState } from "../kernel/stream.ts";
import type { Prompt, TurnState } from "../kernel/turn.ts";
import type { Tape } from "../tape/tape.ts";
import { ToolExecutor } from "../tools/executor.ts";
import type { Tool } from "../tools/tool.ts";
import type { ModelClient } from "./model_client.ts";
import { executeWithEvents } from "./_tool_events.ts";
import { toolInvocations } from "./_tool_calls.ts";
import { keepsMessages } from "../tape/_handed_copies.ts";
import { prepareCall, type PreparedCall, requestForHooks } from "./_call_prepare.ts";
import { startModelCall } from "./_model_call_start.ts";
import { ModelCall } from "./_model_call.ts";
import { tracedModelClient } from "./_traced_model_client.ts";
import { checkMaxAnswerBytes } from "./_answer_limit.ts";
import {
  checkLimitSeconds,
  DEFAULT_MODEL_STALL_TIMEOUT_SECONDS,
  DEFAULT_MODEL_TIMEOUT_SECONDS,
} from "./_call_deadline.ts";

/**
 * What the model runner needs from the agent's settings.
 *
 * @example
 * ```ts
 * import { ModelRunner, type ModelRunnerSettings, ProviderModelClient } from "@bub/core/agent";
 * const settings: ModelRunnerSettings = {
 *   model: "openai:gpt-4o",
 *   fallbackModels: ["anthropic:claude-sonnet-4"],
 *   modelTimeoutSeconds: 120,
 * };
 * const runner = new ModelRunner(new ProviderModelClient(), null, settings);
 * ```
 */
export interface ModelRunnerSettings {
  /** The default `provider:model`. */
  model: string;
  /** Tried in order after the default model fails to start (only for the default model). */
  fallbackModels?: readonly string[] | null;
  /** `max_tokens` of every call. */
  maxTokens?: number | null;
  /**
   * A deadline over the provider call and the whole stream, in seconds; null (or 0) for none.
   * Default 600.
   */
  modelTimeoutSeconds?: number | null;
  /**
   * Fails the call when the provider sends no bytes for this many seconds (waiting for the
   * response or inside the stream); null (or 0) for none. Default 120.
   */
  modelStallTimeoutSeconds?: number | null;
  /** Extra per-call arguments (managed fields win). */
  completionArgs?: Record<string, unknown> | null;
  /**
   * The most UTF-8 bytes of text, reasoning and tool-call arguments one call may stream; past
   * it the provider stream is stopped and the call fails. At least 1024; default 8 MiB.
   */
  maxAnswerBytes?: number | null;
}

/**
 * One step's inputs.
 *
 * @example
 * ```ts
 * import { InMemoryTapeStore, Tape } from "@bub/core";
 * import type { ModelRunArgs } from "@bub/core/agent";
 * const args: ModelRunArgs = {
 *   tape: new Tape({ store: new InMemoryTapeStore() }).scoped("t"),
 *   model: "openai:gpt-4o",
 *   tools: [],
 *   systemPrompt: "Be brief.",
 *   prompt: "hi",
 *   state: {},
 * };
 * ```
 */
export interface ModelRunArgs {
  /** The tape to read from and record on. */
  tape: Tape;
  /** The model of this call. */
  model: string;
  /** Model-facing tools of this step. */
  tools: readonly Tool[];
  /** The full system prompt. */
  systemPrompt: string;
  /** The user prompt, or null to continue the conversation without a new user message. */
  prompt: Prompt | null;
  /** Drained steering prompts, sent as user messages before the prompt. */
  steeringMessages?: readonly Prompt[];
  /** The turn state (hooks and tools see it). */
  state: TurnState;
  /** Cancels the call and the tools. */
  signal?: AbortSignal;
}

/**
 * Runs one model call per {@link ModelRunner.run}. Contract: `afterLlmCall` fires exactly once
 * per call that completes or fails with an error, never on cancellation or an early close; a
 * failed call records nothing on the tape.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore, Tape } from "@bub/core";
 * import { type ModelClient, ModelRunner } from "@bub/core/agent";
 * const client: ModelClient = {
 *   specificationVersion: "bub.model-client.v1",
 *   async *stream(request) {
 *     yield { type: "start", provider: "test", model: request.model };
 *     yield { type: "text", delta: "hello" };
 *     yield { type: "finish", reason: "stop", rawReason: "stop" };
 *   },
 * };
 * const tape = new Tape({ store: new InMemoryTapeStore() }).scoped("t");
 * await tape.ensureBootstrapAnchor();
 * const runner = new ModelRunner(client, null, { model: "test:m" });
 * let text = "";
 * for await (const event of runner.run({ tape, model: "test:m", tools: [], systemPrompt: "", prompt: "hi", state: {} })) {
 *   if (event.kind === "text") text += event.data.delta;
 * }
 * assert.equal(text, "hello");
 * assert.equal((await tape.readMessages()).length, 2); // the prompt and the answer are recorded
 * ```
 */
export class ModelRunner {
  #client: ModelClient;
  /** May the client be handed vouched history copies (`keepsMessages`)? */
  #takesCopies: boolean;
  #hooks: AgentHooks | null;
  #settings: ModelRunnerSettings;
  #executor: ToolExecutor;
  #timeoutSeconds: number | null;
  #stallSeconds: number | null;
  #maxAnswerBytes: number;
  /** The system prompt last recorded on each turn's tape (a fork per turn). */
  #recordedSystem = new WeakMap<Tape, string>();

  /**
   * Creates the object.
   *
   * @param client the provider client
   * @param hooks agent-loop hooks
   * @param settings call settings
   * @throws BubError (config) when a timeout is negative or not a number, or the answer limit
   *   is not an integer of at least 1024
   */
  constructor(client: ModelClient, hooks: AgentHooks | null, settings: ModelRunnerSettings) {
    this.#timeoutSeconds = checkLimitSeconds(
      "modelTimeoutSeconds",
      settings.modelTimeoutSeconds,
      DEFAULT_MODEL_TIMEOUT_SECONDS,
    );
    this.#stallSeconds = checkLimitSeconds(
      "modelStallTimeoutSeconds",
      settings.modelStallTimeoutSeconds,
      DEFAULT_MODEL_STALL_TIMEOUT_SECONDS,
    );
    this.#maxAnswerBytes = checkMaxAnswerBytes(settings.maxAnswerBytes);
    this.#client = tracedModelClient(client);
    this.#takesCopies = keepsMessages(client);
    this.#hooks = hooks;
    this.#settings = settings;
    this.#executor = new ToolExecutor(hooks);
  }

  /** The settings in use. */
  get settings(): ModelRunnerSettings {
    return this.#settings;
  }

  /**
   * The system prompt to record with a call: written once per turn (the turn's tape fork), and
   * again only when a later call's prompt differs from the last one recorded.
   */
  #systemEntry(tape: Tape, systemPrompt: string): string | null {
    if (this.#recordedSystem.get(tape) === systemPrompt) return null;
    this.#recordedSystem.set(tape, systemPrompt);
    return systemPrompt;
  }

  /** Streams one step's events; iterate it to run the call. */
  run(args: ModelRunArgs): AsyncStreamEvents {
    const state = new StreamState();
    return new AsyncStreamEvents(this.#run(args, state), { state });
  }

  /** Starts the call on the request model or a fallback. */
  async #start(args: ModelRunArgs, prepared: PreparedCall, call: ModelCall): Promise<void> {
    const { request } = prepared;
    call.started(
      await startModelCall(request, args.tools, args.state, {
        client: this.#client,
        // Fallbacks only for the default model.
        fallbackModels: request.model === this.#settings.model
          ? this.#settings.fallbackModels ?? []
          : [],
        completionArgs: this.#settings.completionArgs ?? null,
        deadline: call.deadline,
        race: call.race,
        maxAnswerBytes: this.#maxAnswerBytes,
        copies: prepared.copies,
      }),
    );
  }

  /**
   * What a failed call throws: a cancellation as it is (the deadline's failure when it fired),
   * after `afterLlmCall` for an error.
   */
  async #failed(
    error: unknown,
    args: ModelRunArgs,
    prepared: PreparedCall,
    call: ModelCall,
  ): Promise<unknown> {
    if (args.signal?.aborted) return error;
    const failure = call.deadline.failure ?? error;
    if (this.#hooks && (failure !== error || !isCancellation(error))) {
      await this.#hooks.afterLlmCall(
        requestForHooks(prepared, this.#hooks),
        call.result(prepared.runId, failure),
        args.state,
      );
    }
    return failure;
  }

  async *#run(args: ModelRunArgs, streamState: StreamState): AsyncGenerator<StreamEvent> {
    const prepared = await prepareCall(args, {
      hooks: this.#hooks,
      takesCopies: this.#takesCopies,
      maxTokens: this.#settings.maxTokens ?? null,
      systemEntry: (tape, systemPrompt) => this.#systemEntry(tape, systemPrompt),
    });
    if (prepared.decided !== null) {
      yield { kind: "text", data: { delta: prepared.decided } };
      yield { kind: "final", data: { ok: true, text: prepared.decided } };
      return;
    }
    const call = new ModelCall({
      timeoutSeconds: this.#timeoutSeconds,
      stallSeconds: this.#stallSeconds,
      signal: args.signal,
      maxAnswerBytes: this.#maxAnswerBytes,
    }, streamState);
    try {
      await this.#start(args, prepared, call);
      for (;;) {
        const event = call.take(await call.pull());
        if (event === false) break;
        if (event !== null) yield event;
      }
    } catch (error) {
      throw await this.#failed(error, args, prepared, call);
    } finally {
      await call.close();
    }
    if (this.#hooks) {
      await this.#hooks.afterLlmCall(
        requestForHooks(prepared, this.#hooks),
        call.result(prepared.runId, null),
        args.state,
      );
    }
    if (call.usage !== null) yield { kind: "usage", data: { ...call.usage } };
    if (call.calls.length === 0) {
      await this.#record(args, prepared, call, null);
      yield { kind: "final", data: { ok: true, text: call.text } };
      return;
    }
    const calls = call.calls;
    yield { kind: "tool_call", data: { tool_calls: calls } };
    const { tape, state, signal } = args;
    const execution = yield* executeWithEvents(this.#executor, toolInvocations(calls, args.tools), {
      context: { tape, runId: prepared.runId, state, signal },
      signal,
    });
    await this.#record(args, prepared, call, execution.toolResults);
    yield { kind: "tool_result", data: { tool_results: execution.toolResults } };
    yield {
      kind: "final",
      data: { ok: true, tool_calls: calls, tool_results: execution.toolResults },
    };
  }

  /** Records a completed call: its answer, or its tool calls and their results. */
  #record(
    args: ModelRunArgs,
    prepared: PreparedCall,
    call: ModelCall,
    toolResults: unknown[] | null,
  ): Promise<void> {
    const { runId, newMessages, request } = prepared;
    const systemPrompt = this.#systemEntry(args.tape, args.systemPrompt);
    return call.record(
      args.tape,
      { runId, systemPrompt, newMessages, model: request.model },
      toolResults,
    );
  }
}
