/**
 * The start of one model call (the model runner's stage between the request and its events):
 * the request model, then its fallbacks, each until one gets to its `start` event; and the close
 * of a provider stream the runner leaves unfinished.
 *
 * @module
 */
import { getLogger } from "../_internal/log.ts";
import type { AbortRace } from "../_internal/async.ts";
import { isCancellation, type LlmCallRequest } from "../kernel/agent_hooks.ts";
import { BubError } from "../kernel/errors.ts";
import type { TurnState } from "../kernel/turn.ts";
import type { Tool } from "../tools/tool.ts";
import type {
  ChatMessage,
  ChatTool,
  ModelClient,
  ModelEvent,
  ModelRequest,
} from "./model_client.ts";
import { adaptMessagesForProvider } from "./_provider_messages.ts";
import { toolListParts } from "./_tool_schemas.ts";
import type { CallDeadline } from "./_call_deadline.ts";

const logger = getLogger(["bub", "agent"]);

/** A started call: its events (from the first one after `start`) and the provider answering. */
export interface StartedCall {
  iterator: AsyncIterator<ModelEvent>;
  provider: string | null;
}

/** What {@link startModelCall} needs besides the request. */
export interface ModelCallStart {
  /** The client to call (traced). */
  client: ModelClient;
  /** The models tried after `request.model` fails to start (it is the default model). */
  fallbackModels: readonly string[];
  /** Extra per-call arguments. */
  completionArgs: Record<string, unknown> | null;
  /** The call's deadline (its signal cancels, its `touch` counts activity). */
  deadline: CallDeadline;
  /** The call's abort race. */
  race: AbortRace;
  /** The answer limit passed to the client (`ModelStreamOptions.maxAnswerBytes`). */
  maxAnswerBytes: number;
}

/**
 * Starts the call on the first candidate that gets to its `start` event: the request model,
 * then the fallback models. Throws the first error when all fail.
 */
export async function startModelCall(
  request: LlmCallRequest,
  tools: readonly Tool[],
  state: TurnState,
  start: ModelCallStart,
): Promise<StartedCall> {
  // The loop keeps only the awaits: the request and the stream's start are plain functions.
  const { deadline, fallbackModels } = start;
  const signal = deadline.signal;
  const onActivity = () => deadline.touch();
  const count = 1 + fallbackModels.length;
  const schemas = toolListParts(tools).schemas;
  let firstError: unknown = null;
  for (let index = 0; index < count; index++) {
    const model = index === 0 ? request.model : fallbackModels[index - 1]!;
    signal?.throwIfAborted();
    const iterator = openStream(request, model, schemas, state, start, onActivity);
    try {
      return startedCall(model, iterator, await start.race.race(iterator.next()));
    } catch (error) {
      if (isCancellation(error) || signal?.aborted) throw error;
      firstError ??= error;
      if (index < count - 1) {
        logger.warn("model candidate failed; trying fallback model={model} error={error}", {
          model,
          error,
        });
      }
    }
  }
  throw firstError;
}

/**
 * Closes an unfinished provider stream. A `next()` still in flight (cancelled or timed out) may
 * never settle, so then the close is not awaited; its failure is ignored either way.
 */
export async function closeModelCall(
  iterator: AsyncIterator<ModelEvent>,
  pulling: boolean,
): Promise<void> {
  const closing = Promise.resolve().then(() => iterator.return?.()).catch((error: unknown) => {
    logger.debug("closing the model stream failed: {error}", { error });
  });
  if (!pulling) await closing;
}

/** Calls the client for one candidate `model` and opens its event stream. */
function openStream(
  request: LlmCallRequest,
  model: string,
  schemas: readonly ChatTool[] | null,
  state: TurnState,
  start: ModelCallStart,
  onActivity: () => void,
): AsyncIterator<ModelEvent> {
  const messages = adaptMessagesForProvider(providerOf(model), request.messages);
  const modelRequest: ModelRequest = {
    model,
    messages: messages as unknown as ChatMessage[],
    tools: schemas,
    maxTokens: request.maxTokens,
    completionArgs: start.completionArgs,
    reasoningEffort: typeof state.reasoning_effort === "string" ? state.reasoning_effort : null,
  };
  const options = {
    signal: start.deadline.signal,
    onActivity,
    maxAnswerBytes: start.maxAnswerBytes,
  };
  return start.client.stream(modelRequest, options)[Symbol.asyncIterator]();
}

/** The started call from a candidate's first event (a stream that ended at once fails). */
function startedCall(
  model: string,
  iterator: AsyncIterator<ModelEvent>,
  first: IteratorResult<ModelEvent>,
): StartedCall {
  if (first.done) {
    throw new BubError("provider", `Model call to ${model} ended before it started.`);
  }
  const provider = providerOf(model);
  if (first.value.type !== "start") return { iterator: prepend(first.value, iterator), provider };
  return { iterator, provider: first.value.provider ?? provider };
}

/** The provider part of a model id: the text before its first `:` or `/` (all of it if none). */
function providerOf(model: string): string {
  const colon = model.indexOf(":");
  const slash = model.indexOf("/");
  const end = colon < 0 ? slash : slash < 0 ? colon : Math.min(colon, slash);
  return end < 0 ? model : model.slice(0, end);
}

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
