/**
 * Private: the `execute_tool <name>` span of each tool invocation, with the tool's name and the
 * model's call id; a failed outcome (a `BubError`, also when a hook denied the call) or a thrown
 * error sets the span status. The invocation runs inside the span, so a turn started by the tool
 * (a subagent) nests under it. Without a registered tracer provider it just runs the invocation.
 *
 * @module
 */
import {
  GEN_AI_CONVERSATION_ID,
  GEN_AI_OPERATION_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME,
  GEN_AI_TOOL_CALL_ARGUMENTS,
  GEN_AI_TOOL_CALL_ID,
  GEN_AI_TOOL_CALL_RESULT,
  GEN_AI_TOOL_NAME,
  GEN_AI_TOOL_TYPE,
} from "../tracing/attributes.ts";
import {
  captureContentEnabled,
  contentJson,
  currentScope,
  isAbort,
  loadedTracing,
  parentContext,
  recordFailure,
  runInScope,
  type Tracing,
  tracingEnabled,
} from "../tracing/tracer.ts";

/** What {@link traceToolCall} needs to know about an invocation. */
export interface TracedInvocation {
  /** The tool (its `name` is used when the invocation has none). */
  tool: { name: string };
  /** The name as invoked. */
  name?: string;
  /** The model's call id. */
  id?: string;
  /** The arguments (recorded only with content capture on). */
  arguments: unknown;
}

/** Runs `run` in an `execute_tool` span; returns (or throws) exactly what it does. */
export function traceToolCall<T extends { value: unknown; error: unknown }>(
  invocation: TracedInvocation,
  signal: AbortSignal | undefined,
  run: () => Promise<T>,
): Promise<T> {
  if (!tracingEnabled()) return run();
  const tracing = loadedTracing();
  if (tracing === null) return run();
  return traced(tracing, invocation, signal, run);
}

async function traced<T extends { value: unknown; error: unknown }>(
  tracing: Tracing,
  invocation: TracedInvocation,
  signal: AbortSignal | undefined,
  run: () => Promise<T>,
): Promise<T> {
  const { api, tracer } = tracing;
  const scope = currentScope();
  const name = invocation.name ?? invocation.tool.name;
  const attributes: Record<string, string> = {
    [GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_EXECUTE_TOOL,
    [GEN_AI_TOOL_NAME]: name,
    [GEN_AI_TOOL_TYPE]: "function",
  };
  if (invocation.id) attributes[GEN_AI_TOOL_CALL_ID] = invocation.id;
  if (scope?.sessionId) attributes[GEN_AI_CONVERSATION_ID] = scope.sessionId;
  const parent = parentContext(tracing);
  const span = tracer.startSpan(`${GEN_AI_OPERATION_EXECUTE_TOOL} ${name}`, {
    kind: api.SpanKind.INTERNAL,
    attributes,
  }, parent);
  const capture = span.isRecording() && (scope?.captureContent ?? captureContentEnabled());
  if (capture) span.setAttribute(GEN_AI_TOOL_CALL_ARGUMENTS, contentJson(invocation.arguments));
  try {
    const outcome = await runInScope({
      tracing,
      context: api.trace.setSpan(parent, span),
      sessionId: scope?.sessionId ?? null,
      captureContent: capture,
    }, run);
    if (capture) span.setAttribute(GEN_AI_TOOL_CALL_RESULT, contentJson(outcome.value));
    if (outcome.error !== null && outcome.error !== undefined) {
      recordFailure(tracing, span, outcome.error);
    }
    return outcome;
  } catch (error) {
    recordFailure(tracing, span, error, isAbort(error, signal));
    throw error;
  } finally {
    span.end();
  }
}
