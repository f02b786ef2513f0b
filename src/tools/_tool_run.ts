/**
 * Private: running one tool's handler for the executor. A context tool without a context fails,
 * the call's signal reaches the handler (in its context) and cancels the wait, and an observer is
 * told when the call starts and how it ended (a tool that runs tools itself, like a subagent,
 * reports them to the same observer).
 *
 * @module
 */
import { abortable } from "../_internal/async.ts";
import { isCancellation } from "../kernel/agent_hooks.ts";
import { BubError } from "../kernel/errors.ts";
import type { ToolObserver, ToolStartPayload } from "../kernel/stream_events.ts";
import { normalizeToolError } from "./_tool_outcome.ts";
import type { Tool, ToolContext } from "./tool.ts";

/** Runs one call of a tool with the arguments it is given (after the hooks had their say). */
export type ToolRun = (args: Record<string, unknown>) => Promise<unknown>;

/** What {@link toolRun} runs. */
export interface ToolRunTarget {
  /** The tool. */
  tool: Tool;
  /** The name as invoked. */
  name: string;
  /** The model's call id, or null. */
  callId: string | null;
  /** The tool context, or null. */
  context: ToolContext | null;
  /** Cancels the call. */
  signal: AbortSignal | undefined;
  /** Told when the call starts and ends, or null. */
  observer: ToolObserver | null;
}

/** The run of one call of `target.tool`, observed when there is an observer. */
export function toolRun(target: ToolRunTarget): ToolRun {
  const { tool, name, context, signal, observer } = target;
  return (args) => {
    if (!observer) return runTool(tool, name, args, context, signal);
    // A tool that runs tools itself (subagent) reports them to the same observer.
    const toolContext = context ? { ...context, observer } : context;
    const call = () => runTool(tool, name, args, toolContext, signal);
    const base = { call_id: target.callId, name: tool.runtimeName };
    return observed(observer, { ...base, arguments: args }, name, signal, call);
  };
}

/** Runs `call`, telling `observer` its start and end; a cancelled call has no end. */
async function observed(
  observer: ToolObserver,
  base: ToolStartPayload,
  callName: string,
  signal: AbortSignal | undefined,
  call: () => Promise<unknown>,
): Promise<unknown> {
  notify(() => observer.start({ ...base }));
  const started = performance.now();
  try {
    const result = await call();
    const duration = performance.now() - started;
    notify(() => observer.end({ ...base, ok: true, result, error: null, duration_ms: duration }));
    return result;
  } catch (error) {
    const duration = performance.now() - started;
    if (!signal?.aborted && !isCancellation(error)) {
      const failure = normalizeToolError(error, callName, base.arguments);
      notify(() =>
        observer.end({
          ...base,
          ok: false,
          result: undefined,
          error: failure,
          duration_ms: duration,
        })
      );
    }
    throw error;
  }
}

function notify(report: () => void): void {
  try {
    report();
  } catch {
    // an observer must not fail the tool call
  }
}

function runTool(
  tool: Tool,
  name: string,
  args: Record<string, unknown>,
  context: ToolContext | null,
  signal: AbortSignal | undefined,
): Promise<unknown> {
  if (tool.context && !context) {
    return Promise.reject(
      new BubError("invalid_input", `Tool '${name}' requires context but none was provided.`),
    );
  }
  if (signal?.aborted) return Promise.reject(signal.reason);
  const toolContext = context && signal && context.signal !== signal
    ? { ...context, signal }
    : context;
  let pending: Promise<unknown>;
  try {
    pending = tool.run(args, toolContext);
  } catch (error) {
    return Promise.reject(error);
  }
  return abortable(pending, signal);
}
