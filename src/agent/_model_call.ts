/**
 * One model call between its start and its end, for the model runner: the deadline and abort
 * race, the provider's events pulled one at a time and turned into stream events, what the call
 * has streamed (text, tool calls, usage) and the close of an unfinished provider stream. Its
 * methods are plain (sync or promise-returning) so that the runner's async generator holds only
 * the awaits and yields (JavaScriptCore compiles a large async generator slowly, once per tier).
 *
 * @module
 */
import { AbortRace } from "../_internal/async.ts";
import { LlmCallResult } from "../kernel/agent_hooks.ts";
import type { StreamEvent, StreamState } from "../kernel/stream.ts";
import type { Tape } from "../tape/tape.ts";
import type { ChatUsage, ModelEvent } from "./model_client.ts";
import type { SerializedToolCall } from "./_tool_calls.ts";
import { closeModelCall, type StartedCall } from "./_model_call_start.ts";
import { CallDeadline } from "./_call_deadline.ts";
import { AnswerLimit } from "./_answer_limit.ts";

/** The state of one call (see the module doc). */
export class ModelCall {
  /** The call's deadline (its signal cancels the call). */
  readonly deadline: CallDeadline;
  /** One abort listener for every `next()` of the call. */
  readonly race: AbortRace;
  /** The streamed text. */
  text = "";
  /** The streamed tool calls. */
  readonly calls: SerializedToolCall[] = [];
  /** The reported usage, or null. */
  usage: ChatUsage | null = null;
  /** The provider answering, once started. */
  provider: string | null = null;
  #streamState: StreamState;
  #started = performance.now();
  #events: StartedCall | null = null;
  #pulling = false;
  #finished = false;
  #limit: AnswerLimit;

  /**
   * Creates the state; the clocks start now.
   *
   * @param limits the timeout and stall limits (seconds, null for none), the step's signal and
   *   the answer limit (bytes)
   * @param streamState the step's stream state (gets the usage)
   */
  constructor(
    limits: {
      timeoutSeconds: number | null;
      stallSeconds: number | null;
      signal: AbortSignal | undefined;
      maxAnswerBytes: number;
    },
    streamState: StreamState,
  ) {
    this.#limit = new AnswerLimit(limits.maxAnswerBytes);
    this.deadline = new CallDeadline(limits);
    this.race = new AbortRace(this.deadline.signal);
    this.#streamState = streamState;
  }

  /** Takes the started provider stream. */
  started(events: StartedCall): void {
    this.#events = events;
    this.provider = events.provider;
  }

  /** The next provider event, raced against the call's signal. */
  pull(): Promise<IteratorResult<ModelEvent>> {
    // Checked first: a next() dropped by an already-aborted race would reject unhandled.
    this.deadline.signal?.throwIfAborted();
    this.#pulling = true;
    return this.race.race(this.#events!.iterator.next());
  }

  /**
   * Takes a pulled event: the stream event to yield, null for none (tool calls and usage are
   * kept), or false at the end of the stream.
   *
   * @throws BubError (provider) when the answer passes its limit (whatever the client)
   */
  take(next: IteratorResult<ModelEvent>): StreamEvent | null | false {
    this.#pulling = false;
    this.deadline.touch();
    if (next.done) {
      this.#finished = true;
      return false;
    }
    const event = next.value;
    if (event.type === "text") {
      this.#limit.add(event.delta);
      this.text += event.delta;
      return { kind: "text", data: { delta: event.delta } };
    }
    if (event.type === "reasoning") {
      this.#limit.add(event.delta);
      return { kind: "reasoning", data: { delta: event.delta } };
    }
    if (event.type === "tool_call") {
      this.#limit.add(event.name);
      this.#limit.add(event.arguments);
      this.calls.push({
        id: event.id || `call_${event.index}`,
        type: "function",
        function: { name: event.name, arguments: event.arguments || "{}" },
      });
    } else if (event.type === "usage") {
      this.usage = event.usage;
      this.#streamState.usage = event.usage;
    }
    return null;
  }

  /** The call's outcome for `afterLlmCall` (`error` null when it completed). */
  result(runId: string, error: unknown): LlmCallResult {
    return new LlmCallResult({
      runId,
      text: this.text,
      toolCalls: [...this.calls],
      usage: this.usage,
      error,
      durationMs: Math.trunc(performance.now() - this.#started),
    });
  }

  /** Stops the clocks and closes an unfinished provider stream (an early close or a failure). */
  async close(): Promise<void> {
    this.race[Symbol.dispose]();
    this.deadline[Symbol.dispose]();
    if (this.#events !== null && !this.#finished) {
      await closeModelCall(this.#events.iterator, this.#pulling);
    }
  }

  /**
   * Records the completed call on `tape`: its answer (`toolResults` null), or its tool calls and
   * their results.
   */
  record(
    tape: Tape,
    step: {
      runId: string;
      systemPrompt: string | null;
      newMessages: Record<string, unknown>[];
      model: string | null;
    },
    toolResults: unknown[] | null,
  ): Promise<void> {
    const usage = this.usage as Record<string, unknown> | null;
    if (toolResults === null) {
      return tape.recordChat({ ...step, responseText: this.text, usage, provider: this.provider });
    }
    return tape.recordChat({
      ...step,
      toolCalls: this.calls,
      toolResults,
      usage,
      provider: this.provider,
    });
  }
}
