/**
 * The model runner: one step of the agent loop per {@link ModelRunner.run}: the model call
 * (`model_call.ts`: prepare the request, start it, stream its events, record it) and the
 * execution of the tool calls it asked for.
 *
 * @module
 */
import type { AgentHooks } from "../kernel/agent_hooks.ts";
import { AsyncStreamEvents, type StreamEvent, StreamState } from "../kernel/stream.ts";
import type { Tape } from "../tape/tape.ts";
import { ToolExecutor } from "../tools/executor.ts";
import { isOwnClient, type ModelClient } from "./model_client.ts";
import { type CallSetup, type ModelRunArgs, prepareRequest } from "./model_request.ts";
import { recordCall, streamEvents } from "./model_call.ts";
import { recordToolCalls, recordToolResults } from "./_step_records.ts";
import { executeWithEvents, toolInvocations } from "./_tool_calls.ts";
import { tracedModelClient } from "./_traced_model_client.ts";
import { checkMaxAnswerBytes } from "./_answer_limit.ts";
import {
  checkLimitSeconds,
  DEFAULT_MODEL_STALL_TIMEOUT_SECONDS,
  DEFAULT_MODEL_TIMEOUT_SECONDS,
} from "./_call_deadline.ts";

// The limits' defaults and bounds, for the settings that describe them.
export {
  DEFAULT_MODEL_STALL_TIMEOUT_SECONDS,
  DEFAULT_MODEL_TIMEOUT_SECONDS,
} from "./_call_deadline.ts";
export { DEFAULT_MAX_ANSWER_BYTES, MIN_MAX_ANSWER_BYTES } from "./_answer_limit.ts";
export type { ModelRunArgs };

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
  #settings: ModelRunnerSettings;
  #setup: CallSetup;
  #executor: ToolExecutor;
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
    this.#settings = settings;
    this.#setup = {
      client: tracedModelClient(client),
      ownClient: isOwnClient(client),
      hooks,
      defaultModel: settings.model,
      fallbackModels: settings.fallbackModels ?? [],
      maxTokens: settings.maxTokens ?? null,
      completionArgs: settings.completionArgs ?? null,
      timeoutSeconds: checkLimitSeconds(
        "modelTimeoutSeconds",
        settings.modelTimeoutSeconds,
        DEFAULT_MODEL_TIMEOUT_SECONDS,
      ),
      stallSeconds: checkLimitSeconds(
        "modelStallTimeoutSeconds",
        settings.modelStallTimeoutSeconds,
        DEFAULT_MODEL_STALL_TIMEOUT_SECONDS,
      ),
      maxAnswerBytes: checkMaxAnswerBytes(settings.maxAnswerBytes),
      systemEntry: (tape, systemPrompt) => this.#systemEntry(tape, systemPrompt),
    };
    this.#executor = new ToolExecutor(hooks);
  }

  /** The tool executor of every step (with the agent hooks). */
  get executor(): ToolExecutor {
    return this.#executor;
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
    const setup = this.#setup;
    const prepared = await prepareRequest(args, setup);
    if (prepared.decided !== null) {
      yield { kind: "text", data: { delta: prepared.decided } };
      yield { kind: "final", data: { ok: true, text: prepared.decided } };
      return;
    }
    const answer = yield* streamEvents(prepared, args, setup, streamState);
    if (answer.usage !== null) yield { kind: "usage", data: { ...answer.usage } };
    const calls = answer.toolCalls;
    if (calls.length === 0) {
      await recordCall(args, prepared, answer, setup);
      // An answer cut short (`length`, `content-filter`, …) says why; a finished one does not.
      const cut = answer.finish !== null && answer.finish !== "stop" &&
        answer.finish !== "tool-calls";
      yield {
        kind: "final",
        data: { ok: true, text: answer.text, ...(cut ? { finish_reason: answer.finish! } : {}) },
      };
      return;
    }
    yield { kind: "tool_call", data: { tool_calls: calls } };
    const { tape, state, signal } = args;
    const invocations = toolInvocations(calls, args.tools);
    await recordToolCalls(args, prepared, answer, setup);
    const execution = yield* executeWithEvents(this.#executor, invocations, {
      context: { tape, runId: prepared.runId, state, signal },
      signal,
      approve: args.approve,
      recordCalls: true,
    });
    if (execution.held.length > 0) {
      // Suspended: the results of the calls that ran are on their `tool.end` events; the
      // `tool_result` entry is written when the held calls are decided (`turn_resume.ts`).
      yield { kind: "final", data: { ok: true, tool_calls: calls, held: execution.held } };
      return;
    }
    await recordToolResults(tape, prepared.runId, execution.toolResults, {
      usage: answer.usage,
      provider: answer.provider,
      model: prepared.request.model,
    });
    yield { kind: "tool_result", data: { tool_results: execution.toolResults } };
    yield {
      kind: "final",
      data: { ok: true, tool_calls: calls, tool_results: execution.toolResults },
    };
  }
}
