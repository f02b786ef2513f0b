/**
 * One model call of the agent loop: builds the request from the tape, runs the agent-loop hooks,
 * calls the provider (with fallbacks), streams events, executes tool calls and records the call on
 * the tape.
 *
 * @module
 */
import type { AgentHooks } from "../kernel/agent_hooks.ts";
import { isCancellation, LlmCallRequest } from "../kernel/agent_hooks.ts";
import { BubError } from "../kernel/errors.ts";
import { AsyncStreamEvents, type StreamEvent, StreamState } from "../kernel/stream.ts";
import type { Prompt, TurnState } from "../kernel/turn.ts";
import { Tape } from "../tape/tape.ts";
import { ToolExecutor } from "../tools/executor.ts";
import type { Tool } from "../tools/tool.ts";
import type { ModelClient } from "./model_client.ts";
import { newRunId } from "./run_id.ts";
import { executeWithEvents } from "./_tool_events.ts";
import { toolInvocations } from "./_tool_calls.ts";
import { keepsMessages } from "../tape/_handed_copies.ts";
import { startModelCall } from "./_model_call_start.ts";
import { ModelCall } from "./_model_call.ts";
import { tracedModelClient } from "./_traced_model_client.ts";
import { toolListParts } from "./_tool_schemas.ts";
import {
  checkLimitSeconds,
  DEFAULT_MODEL_STALL_TIMEOUT_SECONDS,
  DEFAULT_MODEL_TIMEOUT_SECONDS,
} from "./_call_deadline.ts";

/** What the model runner needs from the agent's settings. */
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
}

/** One step's inputs. */
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

/** A call's request, ready for the provider (or answered by `beforeLlmCall`). */
interface PreparedCall {
  runId: string;
  /** The step's new user messages (steering, then the prompt). */
  newMessages: Record<string, unknown>[];
  request: LlmCallRequest;
  /** The decision's text when `beforeLlmCall` answered instead of the model, else null. */
  decided: string | null;
  /** History copies the client may take as they are (see `startModelCall`), or null. */
  copies: { history: readonly unknown[]; start: number } | null;
}

/**
 * Runs one model call per {@link ModelRunner.run}. Contract: `afterLlmCall` fires exactly once
 * per call that completes or fails with an error, never on cancellation or an early close; a
 * failed call records nothing on the tape.
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
  /** The system prompt last recorded on each turn's tape (a fork per turn). */
  #recordedSystem = new WeakMap<Tape, string>();

  /**
   * Creates the object.
   *
   * @param client the provider client
   * @param hooks agent-loop hooks
   * @param settings call settings
   * @throws BubError (config) when a timeout is negative or not a number
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

  /**
   * The call's request: the history read from the tape (a failed read is recorded), the messages
   * and `beforeLlmCall` (a decision is recorded and answered instead of the call).
   */
  async #prepare(args: ModelRunArgs): Promise<PreparedCall> {
    const { tape, tools, systemPrompt, prompt, state } = args;
    const runId = newRunId();
    const newMessages: Record<string, unknown>[] = [];
    for (const content of args.steeringMessages ?? []) newMessages.push({ role: "user", content });
    if (prompt !== null) newMessages.push({ role: "user", content: prompt });
    let history: Record<string, unknown>[];
    try {
      history = await tape.readMessages();
    } catch (error) {
      if (BubError.isInstance(error)) {
        await tape.recordChat({
          runId,
          systemPrompt: this.#systemEntry(tape, systemPrompt),
          contextError: error,
          newMessages: [],
          error,
        });
      }
      throw error;
    }
    // `concat`, not spreads: one copy of the history's references (spreads iterate it).
    const head: Record<string, unknown>[] = systemPrompt
      ? [{ role: "system", content: systemPrompt }]
      : [];
    const messages = head.concat(history, newMessages);
    let request = new LlmCallRequest({
      runId,
      model: args.model,
      messages,
      toolNames: toolListParts(tools).names,
      maxTokens: this.#settings.maxTokens ?? null,
    });
    // No hook sees the request before the call and Bub's own `readMessages` made the history: its
    // copies reach the client as the tape's context made them (see `vouchCopies`).
    const quiet = (this.#hooks === null || !this.#hooks.seesLlmRequests) &&
      tape.readMessages === Tape.prototype.readMessages;
    let decided: string | null = null;
    if (this.#hooks) {
      const [rewritten, decision] = await this.#hooks.beforeLlmCall(request, state);
      request = rewritten;
      if (decision) {
        await tape.recordChat({
          runId,
          systemPrompt: this.#systemEntry(tape, systemPrompt),
          newMessages,
          responseText: decision.text,
          model: request.model,
        });
        decided = decision.text;
      }
    }
    const copies = quiet && this.#takesCopies && request.messages === messages
      ? { history, start: head.length }
      : null;
    return { runId, newMessages, request, decided, copies };
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
        prepared.request,
        call.result(prepared.runId, failure),
        args.state,
      );
    }
    return failure;
  }

  async *#run(args: ModelRunArgs, streamState: StreamState): AsyncGenerator<StreamEvent> {
    const prepared = await this.#prepare(args);
    if (prepared.decided !== null) {
      yield { kind: "text", data: { delta: prepared.decided } };
      yield { kind: "final", data: { ok: true, text: prepared.decided } };
      return;
    }
    const call = new ModelCall({
      timeoutSeconds: this.#timeoutSeconds,
      stallSeconds: this.#stallSeconds,
      signal: args.signal,
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
        prepared.request,
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
