/**
 * The tool executor: runs one step's tool invocations concurrently through the
 * `beforeToolCall` / `afterToolCall` hooks and normalizes failures to {@link BubError}.
 *
 * @module
 */
import { abortable } from "../_internal/async.ts";
import {
  type AgentHooks,
  isCancellation,
  ToolCall,
  ToolCallResult,
} from "../kernel/agent_hooks.ts";
import { BubError } from "../kernel/errors.ts";
import type { HeldCall, ToolObserver, ToolStartPayload } from "../kernel/stream_events.ts";

export type { HeldCall };
import { TAPE_STATE_KEY, type TurnState } from "../kernel/turn.ts";
import { errorRepr } from "./_repr.ts";
import { traceToolCall } from "./_tool_span.ts";
import { CallJournal, type CallStatus } from "./_call_journal.ts";
import { toIssue, ToolArgumentsError } from "./_schema.ts";
import type { Tool, ToolContext } from "./tool.ts";

/**
 * One tool invocation.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineTool } from "@bub/core";
 * import { type ToolInvocation, ToolExecutor } from "@bub/core/tools";
 * const upper = defineTool({ name: "upper", handler: ({ text }: { text: string }) => text.toUpperCase() });
 * const call: ToolInvocation = { tool: upper, arguments: { text: "hi" }, id: "call_1" };
 * const { toolResults } = await new ToolExecutor().execute([call]);
 * assert.deepEqual(toolResults, ["HI"]);
 * ```
 */
export interface ToolInvocation {
  /** The tool to run. */
  tool: Tool;
  /** The raw arguments (validated and coerced by the tool). */
  arguments: Record<string, unknown>;
  /** The name as invoked (model-facing during agent steps). Default: `tool.name`. */
  name?: string;
  /** The model's tool call id, when the model made the call (recorded on its trace span). */
  id?: string;
}

/**
 * Options of {@link ToolExecutor.execute}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineTool } from "@bub/core";
 * import { type ExecuteToolsOptions, ToolExecutor } from "@bub/core/tools";
 * const names: string[] = [];
 * const options: ExecuteToolsOptions = {
 *   observer: { start: (event) => void names.push(event.name), end: () => {} },
 *   signal: AbortSignal.timeout(10_000),
 * };
 * const noop = defineTool({ name: "noop", handler: () => null });
 * await new ToolExecutor().execute([{ tool: noop, arguments: {} }], options);
 * assert.deepEqual(names, ["noop"]);
 * ```
 */
export interface ExecuteToolsOptions {
  /** The tool context (tape, run id, state); required by context tools. */
  context?: ToolContext | null;
  /** Cancels every invocation. Default: `context.signal`. */
  signal?: AbortSignal;
  /** Told when each tool starts and finishes running (see {@link ToolObserver}). */
  observer?: ToolObserver | null;
  /**
   * Asked when `beforeToolCall` answers `ask`: true runs the call (approved before, or covered
   * by an "always" approval); false, or no function, holds it (see {@link ToolExecution.held}).
   */
  approve?: ((ask: HeldCall) => boolean | Promise<boolean>) | null;
  /**
   * Record `tool.start` `{call_id, tool}` before each call's handler runs and `tool.end`
   * `{call_id, status, result}` when it ends, on `context.tape`. Default false.
   */
  recordCalls?: boolean;
}

/**
 * The outcome of {@link ToolExecutor.execute}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineTool } from "@bub/core";
 * import { type ToolExecution, ToolExecutor } from "@bub/core/tools";
 * const fail = defineTool({ name: "fail", handler: () => { throw new Error("boom"); } });
 * const execution: ToolExecution = await new ToolExecutor().execute([{ tool: fail, arguments: {} }]);
 * assert.equal(execution.error?.kind, "tool");
 * ```
 */
export interface ToolExecution {
  /** One model-facing value per invocation, in input order (an error dict for a failure). */
  toolResults: unknown[];
  /** The last failure in input order, or null. */
  error: BubError | null;
  /** The calls held for approval (their `toolResults` place is null); empty when none. */
  held: HeldCall[];
}

interface Outcome {
  value: unknown;
  error: BubError | null;
  held?: HeldCall;
}

/**
 * Turns anything a tool threw into a {@link BubError}: a `BubError` passes unchanged, argument
 * validation errors become `invalid_input` `Tool '<name>' argument validation failed.` with
 * `details.errors`, anything else becomes `tool` `Tool '<name>' execution failed.` with
 * `details.error` = its developer representation (e.g. `Error('boom')`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { normalizeToolError } from "@bub/core/tools";
 * const error = normalizeToolError(new Error("boom"), "bash", { cmd: "ls" });
 * assert.equal(error.kind, "tool");
 * assert.equal(error.message, "Tool 'bash' execution failed.");
 * ```
 */
export function normalizeToolError(
  error: unknown,
  name: string,
  args: unknown = undefined,
): BubError {
  if (error instanceof ToolArgumentsError) {
    return new BubError("invalid_input", `Tool '${name}' argument validation failed.`, {
      errors: [...error.errors],
    }, { cause: error });
  }
  if (BubError.isInstance(error)) return error;
  const issues = (error as { name?: unknown; issues?: unknown } | null)?.issues;
  if (error instanceof Error && error.name === "ZodError" && Array.isArray(issues)) {
    return new BubError("invalid_input", `Tool '${name}' argument validation failed.`, {
      errors: issues.map((issue) => toIssue(issue, args)),
    }, { cause: error });
  }
  return new BubError("tool", `Tool '${name}' execution failed.`, { error: errorRepr(error) }, {
    cause: error,
  });
}

/**
 * Runs tool invocations concurrently; results keep input order. With {@link AgentHooks}, each
 * invocation goes through `beforeToolCall` (proceed / replace / deny) and exactly one
 * `afterToolCall` unless it is cancelled. Cancellation (an aborted signal or an `AbortError`)
 * propagates and fires no after-hook.
 *
 * @example Run a tool without hooks
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineTool } from "@bub/core";
 * import { ToolExecutor } from "@bub/core/tools";
 * const echo = defineTool({ name: "echo", parameters: { type: "object" }, handler: (args) => args });
 * const { toolResults, error } = await new ToolExecutor().execute([{ tool: echo, arguments: { a: 1 } }]);
 * assert.ok(error === null && JSON.stringify(toolResults) === '[{"a":1}]');
 * ```
 */
export class ToolExecutor {
  #hooks: AgentHooks | null;

  /**
   * Creates an executor.
   *
   * @param hooks the interception facade; without it no hook fires and `_runtime_tape` is not set
   */
  constructor(hooks: AgentHooks | null = null) {
    this.#hooks = hooks ?? null;
  }

  /** Executes `invocations`; see the class description. */
  async execute(
    invocations: readonly ToolInvocation[],
    options: ExecuteToolsOptions = {},
  ): Promise<ToolExecution> {
    if (invocations.length === 0) return { toolResults: [], error: null, held: [] };
    const context = options.context ?? null;
    const signal = options.signal ?? context?.signal;
    signal?.throwIfAborted();
    const observer = options.observer ?? null;
    const journal = options.recordCalls && context ? new CallJournal(context.tape) : null;
    const outcomes = await Promise.all(
      invocations.map((invocation, index) =>
        traceToolCall(
          invocation,
          signal,
          () =>
            this.#invoke(invocation, context, signal, observer, {
              index,
              journal,
              approve: options.approve ?? null,
            }),
        )
      ),
    );
    let error: BubError | null = null;
    const held: HeldCall[] = [];
    const toolResults = outcomes.map((outcome) => {
      if (outcome.error) error = outcome.error;
      if (outcome.held) held.push(outcome.held);
      return outcome.value;
    });
    return { toolResults, error, held };
  }

  async #invoke(
    invocation: ToolInvocation,
    context: ToolContext | null,
    signal: AbortSignal | undefined,
    observer: ToolObserver | null,
    step: InvokeStep,
  ): Promise<Outcome> {
    if (context && invocation.id) context = { ...context, callId: invocation.id };
    const hooks = this.#hooks;
    const name = invocation.name ?? invocation.tool.name;
    const run = (args: Record<string, unknown>) => {
      if (!observer) return runTool(invocation.tool, name, args, context, signal);
      // A tool that runs tools itself (subagent) reports them to the same observer.
      const toolContext = context ? { ...context, observer } : context;
      const call = () => runTool(invocation.tool, name, args, toolContext, signal);
      const base = { call_id: invocation.id ?? null, name: invocation.tool.runtimeName };
      return observed(observer, { ...base, arguments: args }, name, signal, call);
    };
    const callId = invocation.id ?? null;
    const journal = step.journal;
    if (!hooks) {
      await journal?.start(callId, invocation.tool.runtimeName);
      try {
        const value = await run(invocation.arguments);
        await journal?.end(callId, "ok", value);
        return { value, error: null };
      } catch (error) {
        const outcome = failed(
          normalizeToolError(cancelled(error, signal), name, invocation.arguments),
          null,
        );
        await journal?.end(callId, "error", outcome.value);
        return outcome;
      }
    }
    const state: TurnState = context?.state ?? {};
    if (context) state[TAPE_STATE_KEY] = context.tape;
    const runId = context?.runId || "";
    const started = performance.now();
    const [call, decision] = await hooks.beforeToolCall(
      new ToolCall({ runId, tool: name, arguments: invocation.arguments }),
      state,
    );
    signal?.throwIfAborted();
    if (decision.action === "ask") {
      const held: HeldCall = {
        index: step.index,
        callId,
        tool: invocation.tool.runtimeName,
        arguments: call.arguments,
        reason: decision.message ?? "",
        match: decision.match,
      };
      if (!step.approve || !(await step.approve(held))) return { value: null, error: null, held };
    }
    const result = new ToolCallResult({ runId, tool: name, arguments: call.arguments });
    let error: BubError | null = null;
    let status: CallStatus = "ok";
    if (decision.action === "deny") {
      status = "denied";
      error = new BubError(
        "tool",
        decision.message || `Tool '${name}' call denied by policy hook.`,
      );
    } else if (decision.action === "replace") {
      status = "replaced";
      result.result = decision.result;
    } else {
      await journal?.start(callId, invocation.tool.runtimeName);
      try {
        result.result = await run(call.arguments);
      } catch (thrown) {
        status = "error";
        error = normalizeToolError(cancelled(thrown, signal), name, call.arguments);
      }
    }
    result.error = error;
    result.durationMs = Math.trunc(performance.now() - started);
    await hooks.afterToolCall(call, result, state);
    const outcome = error ? failed(error, result.result) : { value: result.result, error: null };
    await journal?.end(callId, status, outcome.value);
    return outcome;
  }
}

/** What one invocation of a step gets besides the call. */
interface InvokeStep {
  index: number;
  journal: CallJournal | null;
  approve: ExecuteToolsOptions["approve"];
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

/** Rethrows cancellation; returns any other error. */
function cancelled(error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) throw signal.reason;
  if (isCancellation(error)) throw error;
  return error;
}

function failed(error: BubError, replacement: unknown): Outcome {
  const value = replacement === null || replacement === undefined ? error.asDict() : replacement;
  return { value, error };
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
