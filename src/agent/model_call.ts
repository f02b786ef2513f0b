/**
 * One model call, told in order: `prepareRequest` (in `model_request.ts`: the history read
 * from the tape, the system prompt, the step's new messages, `beforeLlmCall`),
 * {@link startWithFallbacks} (the request model, then the fallbacks, until one starts), {@link streamEvents} (the deadline and
 * abort, provider events turned into stream events, the answer limit, `afterLlmCall`) and
 * {@link recordCall} (an answer on the tape; a step with tool calls is recorded by
 * `_step_records.ts`). `model_runner.ts` runs these for each step and executes the tool calls in
 * between.
 *
 * @module
 */
import { AbortRace } from "../_internal/async.ts";
import { getLogger } from "../_internal/log.ts";
import { isCancellation, LlmCallResult } from "../kernel/agent_hooks.ts";
import { BubError } from "../kernel/errors.ts";
import type { StreamEvent, StreamState } from "../kernel/stream.ts";
import type {
  ChatMessage,
  ChatUsage,
  ModelEvent,
  ModelFinishReason,
  ModelRequest,
} from "./model_client.ts";
import { AnswerLimit } from "./_answer_limit.ts";
import { CallDeadline } from "./_call_deadline.ts";
import { type KeptHistory, sendsKeptHistory } from "./providers/_chat_messages.ts";
import { adaptMessagesForProvider } from "./providers/_provider_messages.ts";
import { type SerializedToolCall, toolListParts } from "./_tool_calls.ts";
import type { CallSetup, ModelRunArgs, PreparedRequest } from "./model_request.ts";

const logger = getLogger(["bub", "agent"]);

/** What a completed call streamed. */
export interface CallAnswer {
  text: string;
  toolCalls: SerializedToolCall[];
  usage: ChatUsage | null;
  /** The provider that answered. */
  provider: string | null;
  /** Why the model stopped (its `finish` event), or null when it did not say. */
  finish: ModelFinishReason | null;
}

/** A started provider stream: its events from the first one after `start`. */
interface StartedStream {
  events: AsyncIterator<ModelEvent>;
  provider: string;
}

/**
 * Starts the call on the first model that gets to its `start` event: the request model, then
 * (for the default model) the fallback models. Throws the first error when all fail.
 */
export async function startWithFallbacks(
  prepared: PreparedRequest,
  args: ModelRunArgs,
  setup: CallSetup,
  deadline: CallDeadline,
  race: AbortRace,
): Promise<StartedStream> {
  const { request } = prepared;
  const models = request.model === setup.defaultModel
    ? [request.model, ...setup.fallbackModels]
    : [request.model];
  let firstError: unknown = null;
  for (const [index, model] of models.entries()) {
    deadline.signal?.throwIfAborted();
    const events = openStream(prepared, model, args, setup, deadline);
    try {
      const first = await race.race(events.next());
      if (first.done) {
        throw new BubError("provider", `Model call to ${model} ended before it started.`);
      }
      if (first.value.type !== "start") {
        return { events: prepend(first.value, events), provider: providerOf(model) };
      }
      return { events, provider: first.value.provider ?? providerOf(model) };
    } catch (error) {
      if (isCancellation(error) || deadline.signal?.aborted) throw error;
      firstError ??= error;
      if (index < models.length - 1) {
        logger.warn("model candidate failed; trying fallback model={model} error={error}", {
          model,
          error,
        });
      }
    }
  }
  throw firstError;
}

/** Calls the client for one candidate `model` and opens its event stream. */
function openStream(
  prepared: PreparedRequest,
  model: string,
  args: ModelRunArgs,
  setup: CallSetup,
  deadline: CallDeadline,
): AsyncIterator<ModelEvent> {
  const { request, keptHistory } = prepared;
  const { reasoning_effort } = args.state;
  const messages = adaptMessagesForProvider(providerOf(model), request.messages);
  const modelRequest: ModelRequest = {
    model,
    messages: messages as ChatMessage[],
    tools: toolListParts(args.tools).schemas,
    maxTokens: request.maxTokens,
    completionArgs: setup.completionArgs,
    reasoningEffort: typeof reasoning_effort === "string" ? reasoning_effort : null,
  };
  if (keptHistory !== null && sameItems(messages, request.messages, keptHistory)) {
    sendsKeptHistory(modelRequest, keptHistory);
  }
  return setup.client.stream(modelRequest, {
    signal: deadline.signal,
    onActivity: () => deadline.touch(),
    maxAnswerBytes: setup.maxAnswerBytes,
  })[Symbol.asyncIterator]();
}

/**
 * Streams the call's events: starts it ({@link startWithFallbacks}) under its deadline, turns
 * the provider's events into stream events (text and reasoning as they come; tool calls and usage
 * are kept for the answer) while counting the answer against its limit, closes an unfinished
 * provider stream and calls `afterLlmCall` once, with the answer or the error (not for a
 * cancellation or an early close). Returns what the call streamed.
 *
 * @throws BubError (provider) when the answer passes its limit; (temporary) when the deadline fires
 */
export async function* streamEvents(
  prepared: PreparedRequest,
  args: ModelRunArgs,
  setup: CallSetup,
  streamState: StreamState,
): AsyncGenerator<StreamEvent, CallAnswer> {
  const started = performance.now();
  const deadline = new CallDeadline({
    timeoutSeconds: setup.timeoutSeconds,
    stallSeconds: setup.stallSeconds,
    signal: args.signal,
  });
  const race = new AbortRace(deadline.signal);
  const limit = new AnswerLimit(setup.maxAnswerBytes);
  const answer: CallAnswer = {
    text: "",
    toolCalls: [],
    usage: null,
    provider: null,
    finish: null,
  };
  const afterCall = (error: unknown) =>
    setup.hooks!.afterLlmCall(
      prepared.request,
      new LlmCallResult({
        runId: prepared.runId,
        text: answer.text,
        toolCalls: [...answer.toolCalls],
        usage: answer.usage,
        error,
        durationMs: Math.trunc(performance.now() - started),
      }),
      args.state,
    );
  let stream: StartedStream | null = null;
  let pulling = false;
  let finished = false;
  try {
    stream = await startWithFallbacks(prepared, args, setup, deadline, race);
    answer.provider = stream.provider;
    for (;;) {
      // Checked first: a next() dropped by an already-aborted race would reject unhandled.
      deadline.signal?.throwIfAborted();
      pulling = true;
      const next = await race.race(stream.events.next());
      pulling = false;
      deadline.touch();
      if (next.done) break;
      const event = next.value;
      if (event.type === "text") {
        limit.add(event.delta);
        answer.text += event.delta;
        yield { kind: "text", data: { delta: event.delta } };
      } else if (event.type === "reasoning") {
        limit.add(event.delta);
        yield { kind: "reasoning", data: { delta: event.delta } };
      } else if (event.type === "tool_call") {
        limit.add(event.name);
        limit.add(event.arguments);
        answer.toolCalls.push({
          id: event.id || `call_${event.index}`,
          type: "function",
          function: { name: event.name, arguments: event.arguments || "{}" },
        });
      } else if (event.type === "usage") {
        answer.usage = event.usage;
        streamState.usage = event.usage;
      } else if (event.type === "finish") {
        answer.finish = event.reason;
      }
    }
    finished = true;
  } catch (error) {
    if (args.signal?.aborted) throw error;
    // A cancellation by the deadline fails with the deadline's error.
    const failure = deadline.failure ?? error;
    if (setup.hooks && (failure !== error || !isCancellation(error))) await afterCall(failure);
    throw failure;
  } finally {
    race[Symbol.dispose]();
    deadline[Symbol.dispose]();
    if (stream !== null && !finished) await closeStream(stream.events, pulling);
  }
  if (setup.hooks) await afterCall(null);
  return answer;
}

/**
 * Records a call answered with text: the system prompt (when the turn's tape does not have it
 * yet), the step's new messages, the answer and the `run` event.
 */
export function recordCall(
  args: ModelRunArgs,
  prepared: PreparedRequest,
  answer: CallAnswer,
  setup: CallSetup,
): Promise<void> {
  return args.tape.recordChat({
    runId: prepared.runId,
    systemPrompt: setup.systemEntry(args.tape, args.systemPrompt),
    newMessages: prepared.newMessages,
    model: prepared.request.model,
    usage: answer.usage as Record<string, unknown> | null,
    provider: answer.provider,
    responseText: answer.text,
  });
}

/**
 * Closes an unfinished provider stream. A `next()` still in flight (cancelled or timed out) may
 * never settle, so then the close is not awaited; its failure is ignored either way.
 */
async function closeStream(events: AsyncIterator<ModelEvent>, pulling: boolean): Promise<void> {
  const closing = Promise.resolve().then(() => events.return?.()).catch((error: unknown) => {
    logger.debug("closing the model stream failed: {error}", { error });
  });
  if (!pulling) await closing;
}

/** The provider part of a model id: the text before its first `:` or `/` (all of it if none). */
function providerOf(model: string): string {
  const colon = model.indexOf(":");
  const slash = model.indexOf("/");
  const end = colon < 0 ? slash : slash < 0 ? colon : Math.min(colon, slash);
  return end < 0 ? model : model.slice(0, end);
}

/** True when `a` and `b` hold the same objects in `history`'s places (a provider may adapt some). */
function sameItems(a: readonly unknown[], b: readonly unknown[], history: KeptHistory): boolean {
  for (let i = history.start; i < history.start + history.count; i++) {
    if (a[i] !== b[i]) return false;
  }
  return true;
}

/** `rest` with `first` in front of it. */
function prepend<T>(first: T, rest: AsyncIterator<T>): AsyncIterator<T> {
  let used = false;
  return {
    next: () => {
      if (used) return rest.next();
      used = true;
      return Promise.resolve({ done: false, value: first });
    },
    return: (value?: unknown) =>
      rest.return?.(value) ?? Promise.resolve({ done: true, value: undefined }),
  };
}
