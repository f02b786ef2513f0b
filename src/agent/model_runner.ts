/**
 * One model call of the agent loop: builds the request from the tape, runs the agent-loop hooks,
 * calls the provider (with fallbacks), streams events, executes tool calls and records the call on
 * the tape.
 *
 * @module
 */
import { AbortRace } from "../_internal/async.ts";
import type { AgentHooks } from "../kernel/agent_hooks.ts";
import { isCancellation, LlmCallRequest, LlmCallResult } from "../kernel/agent_hooks.ts";
import { BubError } from "../kernel/errors.ts";
import { AsyncStreamEvents, type StreamEvent, StreamState } from "../kernel/stream.ts";
import type { Prompt, TurnState } from "../kernel/turn.ts";
import { Tape } from "../tape/tape.ts";
import { ToolExecutor } from "../tools/executor.ts";
import type { Tool } from "../tools/tool.ts";
import type { ChatUsage, ModelClient } from "./model_client.ts";
import { newRunId } from "./run_id.ts";
import { executeWithEvents } from "./_tool_events.ts";
import { parseToolArguments, type SerializedToolCall, unknownTool } from "./_tool_calls.ts";
import { keepsMessages } from "../tape/_handed_copies.ts";
import { closeModelCall, type StartedCall, startModelCall } from "./_model_call_start.ts";
import { tracedModelClient } from "./_traced_model_client.ts";
import { toolListParts } from "./_tool_schemas.ts";
import {
  CallDeadline,
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

function elapsed(start: number): number {
  return Math.trunc(performance.now() - start);
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

  async *#run(args: ModelRunArgs, streamState: StreamState): AsyncGenerator<StreamEvent> {
    const { tape, tools, systemPrompt, prompt, state, signal } = args;
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
        yield { kind: "text", data: { delta: decision.text } };
        yield { kind: "final", data: { ok: true, text: decision.text } };
        return;
      }
    }

    const started = performance.now();
    let fired = false;
    const fire = async (result: LlmCallResult) => {
      if (fired || !this.#hooks) return;
      fired = true;
      await this.#hooks.afterLlmCall(request, result, state);
    };
    const outcome = (error: unknown) =>
      new LlmCallResult({
        runId,
        text,
        toolCalls: [...calls],
        usage,
        error,
        durationMs: elapsed(started),
      });
    const deadline = new CallDeadline({
      timeoutSeconds: this.#timeoutSeconds,
      stallSeconds: this.#stallSeconds,
      signal,
    });
    const callSignal = deadline.signal;
    // One abort listener for every `next()` of the call.
    const race = new AbortRace(callSignal);

    let text = "";
    const calls: SerializedToolCall[] = [];
    let usage: ChatUsage | null = null;
    let provider: string | null = null;
    let events: StartedCall | null = null;
    let pulling = false;
    let finished = false;
    try {
      events = await startModelCall(request, tools, state, {
        client: this.#client,
        // Fallbacks only for the default model.
        fallbackModels: request.model === this.#settings.model
          ? this.#settings.fallbackModels ?? []
          : [],
        completionArgs: this.#settings.completionArgs ?? null,
        deadline,
        race,
        copies: quiet && this.#takesCopies && request.messages === messages
          ? { history, start: head.length }
          : null,
      });
      provider = events.provider;
      for (;;) {
        // Checked first: a next() dropped by an already-aborted race would reject unhandled.
        callSignal?.throwIfAborted();
        pulling = true;
        const next = await race.race(events.iterator.next());
        pulling = false;
        deadline.touch();
        if (next.done) {
          finished = true;
          break;
        }
        const event = next.value;
        if (event.type === "text") {
          text += event.delta;
          yield { kind: "text", data: { delta: event.delta } };
        } else if (event.type === "reasoning") {
          yield { kind: "reasoning", data: { delta: event.delta } };
        } else if (event.type === "tool_call") {
          calls.push({
            id: event.id || `call_${event.index}`,
            type: "function",
            function: { name: event.name, arguments: event.arguments || "{}" },
          });
        } else if (event.type === "usage") {
          usage = event.usage;
          streamState.usage = usage;
        }
      }
    } catch (error) {
      if (signal?.aborted) throw error;
      const failure = deadline.failure ?? error;
      if (failure !== error || !isCancellation(error)) await fire(outcome(failure));
      throw failure;
    } finally {
      race[Symbol.dispose]();
      deadline[Symbol.dispose]();
      // An early close or a failure leaves the provider stream open: close it (its HTTP body).
      if (events !== null && !finished) await closeModelCall(events.iterator, pulling);
    }
    await fire(outcome(null));
    if (usage !== null) yield { kind: "usage", data: { ...usage } };

    if (calls.length === 0) {
      await tape.recordChat({
        runId,
        systemPrompt: this.#systemEntry(tape, systemPrompt),
        newMessages,
        responseText: text,
        usage: usage as Record<string, unknown> | null,
        provider,
        model: request.model,
      });
      yield { kind: "final", data: { ok: true, text } };
      return;
    }
    const invocations = calls.map((call) => {
      const args = parseToolArguments(call.function.arguments);
      const tool = tools.find((candidate) => candidate.name === call.function.name) ??
        unknownTool(call.function.name);
      return { tool, arguments: args, name: call.function.name, id: call.id };
    });
    yield { kind: "tool_call", data: { tool_calls: calls } };
    const execution = yield* executeWithEvents(this.#executor, invocations, {
      context: { tape, runId, state, signal },
      signal,
    });
    await tape.recordChat({
      runId,
      systemPrompt: this.#systemEntry(tape, systemPrompt),
      newMessages,
      toolCalls: calls,
      toolResults: execution.toolResults,
      usage: usage as Record<string, unknown> | null,
      provider,
      model: request.model,
    });
    yield { kind: "tool_result", data: { tool_results: execution.toolResults } };
    yield {
      kind: "final",
      data: { ok: true, tool_calls: calls, tool_results: execution.toolResults },
    };
  }
}
