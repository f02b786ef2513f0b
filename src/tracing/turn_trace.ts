/**
 * The spans of one turn: `invoke_agent bub` around the whole turn and one `hook <name>` span per
 * hook stage of the pipeline, each stage run as the parent of the spans started inside it (model
 * calls, tool calls). Without a registered tracer provider every method is a plain pass-through.
 *
 * @module
 */
import {
  BUB_AGENT_NAME,
  BUB_CHANNEL,
  BUB_HOOK_NAME,
  GEN_AI_AGENT_NAME,
  GEN_AI_CONVERSATION_ID,
  GEN_AI_OPERATION_INVOKE_AGENT,
  GEN_AI_OPERATION_NAME,
} from "./attributes.ts";
import {
  activeTracing,
  captureContentEnabled,
  type Context,
  isAbort,
  parentContext,
  recordFailure,
  runInScope,
  type Span,
  type Tracing,
  tracingEnabled,
} from "./tracer.ts";

/** The tracing of one turn (see the module doc). */
export interface TurnTrace {
  /**
   * Runs one hook stage (`hook` is the camelCase hook name, e.g. `buildPrompt`) in its span.
   * Contract: returns or throws exactly what `run` does.
   */
  stage<T>(hook: string, run: () => Promise<T>): Promise<T>;
  /** Records the resolved session id (`gen_ai.conversation.id`). */
  session(sessionId: string): void;
  /** Ends the turn span: with `error` as a failure (or a cancellation), else as a success. */
  end(error?: unknown, cancelled?: boolean): void;
}

/** The turn trace that does nothing (no tracer provider registered). */
export const NO_TURN_TRACE: TurnTrace = {
  stage: (_hook, run) => run(),
  session: () => {},
  end: () => {},
};

/** Options of {@link startTurnTrace}. */
export interface StartTurnTraceOptions {
  /** The inbound message's channel (`bub.channel`), when it has one. */
  channel?: string | null;
  /** The turn's cancellation signal: a failure once it is aborted is a cancellation. */
  signal?: AbortSignal | null;
}

/**
 * Starts the `invoke_agent` span of a turn, or returns {@link NO_TURN_TRACE} (synchronously)
 * when no tracer provider is registered.
 */
export function startTurnTrace(
  options: StartTurnTraceOptions = {},
): TurnTrace | Promise<TurnTrace> {
  if (!tracingEnabled()) return NO_TURN_TRACE;
  return activeTracing().then(
    (tracing) => (tracing === null ? NO_TURN_TRACE : new RecordingTurnTrace(tracing, options)),
    () => NO_TURN_TRACE,
  );
}

class RecordingTurnTrace implements TurnTrace {
  #tracing: Tracing;
  #span: Span;
  #context: Context;
  #sessionId: string | null = null;
  #captureContent = captureContentEnabled();
  #signal: AbortSignal | null;
  #ended = false;

  constructor(tracing: Tracing, options: StartTurnTraceOptions) {
    this.#tracing = tracing;
    this.#signal = options.signal ?? null;
    const { api, tracer } = tracing;
    const attributes: Record<string, string> = {
      [GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_INVOKE_AGENT,
      [GEN_AI_AGENT_NAME]: BUB_AGENT_NAME,
    };
    if (options.channel) attributes[BUB_CHANNEL] = options.channel;
    const parent = parentContext(tracing);
    this.#span = tracer.startSpan(
      `${GEN_AI_OPERATION_INVOKE_AGENT} ${BUB_AGENT_NAME}`,
      { kind: api.SpanKind.INTERNAL, attributes },
      parent,
    );
    this.#context = api.trace.setSpan(parent, this.#span);
  }

  session(sessionId: string): void {
    this.#sessionId = sessionId;
    this.#span.setAttribute(GEN_AI_CONVERSATION_ID, sessionId);
  }

  async stage<T>(hook: string, run: () => Promise<T>): Promise<T> {
    const { api, tracer } = this.#tracing;
    const span = tracer.startSpan(`hook ${hook}`, {
      kind: api.SpanKind.INTERNAL,
      attributes: { [BUB_HOOK_NAME]: hook },
    }, this.#context);
    const scope = {
      tracing: this.#tracing,
      context: api.trace.setSpan(this.#context, span),
      sessionId: this.#sessionId,
      captureContent: this.#captureContent,
    };
    try {
      return await runInScope(scope, run);
    } catch (error) {
      recordFailure(this.#tracing, span, error, isAbort(error, this.#signal));
      throw error;
    } finally {
      span.end();
    }
  }

  end(error?: unknown, cancelled = false): void {
    if (this.#ended) return;
    this.#ended = true;
    if (error !== undefined) {
      recordFailure(this.#tracing, this.#span, error, cancelled || isAbort(error, this.#signal));
    }
    this.#span.end();
  }
}
