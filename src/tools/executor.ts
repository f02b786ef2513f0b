/**
 * The tool executor: runs one step's tool invocations concurrently through the
 * `beforeToolCall` / `afterToolCall` hooks (`_tool_hooks.ts`) and normalizes failures to
 * {@link BubError} (`_tool_outcome.ts`); each tool's handler runs with its context, the signal and
 * the observer (`_tool_run.ts`). Results keep input order.
 *
 * @module
 */
import type { AgentHooks } from "../kernel/agent_hooks.ts";
import type { BubError } from "../kernel/errors.ts";
import type { HeldCall, ToolObserver } from "../kernel/stream_events.ts";
import { traceToolCall } from "./_tool_span.ts";
import { CallJournal } from "./_call_journal.ts";
import { type CallStep, callThroughHooks, callWithoutHooks } from "./_tool_hooks.ts";
import type { Outcome } from "./_tool_outcome.ts";
import { toolRun } from "./_tool_run.ts";
import type { Tool, ToolContext } from "./tool.ts";

export type { HeldCall };
export { normalizeToolError } from "./_tool_outcome.ts";

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
    const step: CallStep = {
      context,
      signal,
      journal: options.recordCalls && context ? new CallJournal(context.tape) : null,
      approve: options.approve ?? null,
    };
    const outcomes = await Promise.all(
      invocations.map((invocation, index) =>
        traceToolCall(invocation, signal, () => this.#invoke(invocation, index, observer, step))
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
    index: number,
    observer: ToolObserver | null,
    step: CallStep,
  ): Promise<Outcome> {
    const callId = invocation.id ?? null;
    // The tool sees its own call id; the hooks see the step's context.
    const context = step.context && callId ? { ...step.context, callId } : step.context;
    const name = invocation.name ?? invocation.tool.name;
    const call = {
      name,
      tool: invocation.tool.runtimeName,
      callId,
      arguments: invocation.arguments,
      index,
      run: toolRun({ tool: invocation.tool, name, callId, context, signal: step.signal, observer }),
    };
    if (!this.#hooks) return await callWithoutHooks(call, step);
    return await callThroughHooks(this.#hooks, call, step);
  }
}
