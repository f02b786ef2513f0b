/**
 * A Bub turn as ACP `session/update`s: text deltas become `agent_message_chunk`, reasoning
 * `agent_thought_chunk`, a tool's start a `tool_call` (kind, title, locations, raw input) and
 * its end a `tool_call_update` (status, content — a diff for file writes and edits, the
 * editor's terminal for a command run there — and raw output), a model call's usage a
 * `usage_update`. The same shapes serve the replay of a tape (`history_updates.ts`).
 *
 * @module
 */
import type { TurnEvent } from "../../kernel/turn_stream.ts";
import { PLAN_TOOL_NAMES, planEntries } from "./plan_tool.ts";
import { resultText, toolView } from "./tool_view.ts";

/**
 * One `session/update` payload (the protocol's `SessionUpdate`, as plain JSON).
 *
 * @example
 * ```ts
 * import type { AcpUpdate } from "@bub/core/channels";
 * const chunk: AcpUpdate = {
 *   sessionUpdate: "agent_message_chunk",
 *   content: { type: "text", text: "hello" },
 * };
 * ```
 */
export type AcpUpdate = Record<string, unknown> & { sessionUpdate: string };

/** A text content block. */
export function textBlock(text: string): { type: "text"; text: string } {
  return { type: "text", text };
}

/** The `plan` update of a `plan.update` call, or none for any other call (or a bad plan). */
export function planUpdate(name: string, args: Record<string, unknown>): AcpUpdate[] {
  if (!PLAN_TOOL_NAMES.includes(name)) return [];
  try {
    return [{ sessionUpdate: "plan", entries: planEntries(args) }];
  } catch {
    return [];
  }
}

/** The `tool_call` update of a call that starts. */
export function toolCallStart(
  callId: string,
  name: string,
  args: Record<string, unknown>,
  workspace: string,
  status: "pending" | "in_progress" = "in_progress",
): AcpUpdate {
  const view = toolView(name, args, workspace);
  return {
    sessionUpdate: "tool_call",
    toolCallId: callId,
    title: view.title,
    kind: view.kind,
    status,
    locations: view.locations,
    rawInput: args,
  };
}

/** The content an editor shows for a finished call: a diff for a file write or edit, else text. */
function toolContent(
  name: string,
  args: Record<string, unknown>,
  ok: boolean,
  output: string,
  workspace: string,
): Record<string, unknown>[] {
  const [location] = toolView(name, args, workspace).locations;
  name = name.replace(/^fs_/, "fs.");
  if (ok && location && name === "fs.write" && typeof args.content === "string") {
    return [{ type: "diff", path: location.path, oldText: null, newText: args.content }];
  }
  if (ok && location && name === "fs.edit" && typeof args.new === "string") {
    const oldText = typeof args.old === "string" ? args.old : null;
    return [{ type: "diff", path: location.path, oldText, newText: args.new }];
  }
  return output === "" ? [] : [{ type: "content", content: textBlock(output) }];
}

/** The `tool_call_update` of a call that ended. */
export function toolCallEnd(
  callId: string,
  name: string,
  args: Record<string, unknown>,
  ok: boolean,
  result: unknown,
  workspace: string,
): AcpUpdate {
  const output = resultText(result);
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: callId,
    status: ok ? "completed" : "failed",
    content: toolContent(name, args, ok, output, workspace),
    rawOutput: ok ? { output } : { error: output },
  };
}

/**
 * The `usage_update` of one model call's usage (the OpenAI chat shape Bub reports): `used` is
 * the tokens the call's context and answer hold, `size` the model's context window; the
 * input / output / total tokens go in `_meta.usage` (the shape of the protocol's `Usage`).
 * None when the window is unknown (the protocol requires `size`) or the usage has no tokens.
 */
export function usageUpdate(usage: Record<string, unknown>, window: number | null): AcpUpdate[] {
  const count = (value: unknown) => typeof value === "number" && Number.isFinite(value) ? value : 0;
  const inputTokens = count(usage.prompt_tokens);
  const outputTokens = count(usage.completion_tokens);
  const totalTokens = count(usage.total_tokens) || inputTokens + outputTokens;
  if (window === null || totalTokens === 0) return [];
  const details = (key: string, field: string) => {
    const value = (usage[key] as Record<string, unknown> | undefined)?.[field];
    return typeof value === "number" ? value : undefined;
  };
  const cached = details("prompt_tokens_details", "cached_tokens");
  const thought = details("completion_tokens_details", "reasoning_tokens");
  return [{
    sessionUpdate: "usage_update",
    used: totalTokens,
    size: window,
    _meta: {
      usage: {
        inputTokens,
        outputTokens,
        totalTokens,
        ...(cached === undefined ? {} : { cachedReadTokens: cached }),
        ...(thought === undefined ? {} : { thoughtTokens: thought }),
      },
    },
  }];
}

/**
 * Turns a running turn's events into `session/update`s. Call ids the model did not give are
 * numbered per turn, so every `tool_call_update` names the `tool_call` it ends.
 */
export class TurnUpdates {
  readonly #workspace: string;
  readonly #window: number | null;
  #anonymous = 0;
  readonly #ids = new Map<string, string>();
  #finish: string | null = null;
  /** The editor's terminal of each call that runs a command there. */
  readonly #terminals = new Map<string, string>();
  readonly #started = new Set<string>();

  /**
   * Updates for a turn whose relative paths resolve against `workspace`, of a model whose
   * context window is `window` tokens (null: unknown, no `usage_update`).
   */
  constructor(workspace: string, window: number | null = null) {
    this.#workspace = workspace;
    this.#window = window;
  }

  /** Why the model stopped its last answer when it did not finish it (see `FinalPayload`). */
  get finishReason(): string | null {
    return this.#finish;
  }

  #callId(callId: string | null, name: string, starting: boolean): string {
    if (callId) return callId;
    if (starting) this.#ids.set(name, `call-${++this.#anonymous}`);
    return this.#ids.get(name) ?? `call-${++this.#anonymous}`;
  }

  /**
   * Shows terminal `terminalId` in call `callId`: the update to send now when the call's
   * `tool_call` went out, else none (its `tool_call` will carry the terminal).
   */
  terminal(callId: string, terminalId: string): AcpUpdate[] {
    this.#terminals.set(callId, terminalId);
    return this.#started.has(callId)
      ? [{
        sessionUpdate: "tool_call_update",
        toolCallId: callId,
        content: [{ type: "terminal", terminalId }],
      }]
      : [];
  }

  /** The updates one event makes (none for most bookkeeping events). */
  of(event: TurnEvent): AcpUpdate[] {
    switch (event.kind) {
      case "text":
        return event.data.delta === ""
          ? []
          : [{ sessionUpdate: "agent_message_chunk", content: textBlock(event.data.delta) }];
      case "reasoning":
        return event.data.delta === ""
          ? []
          : [{ sessionUpdate: "agent_thought_chunk", content: textBlock(event.data.delta) }];
      case "tool_start": {
        const { name, arguments: args } = event.data;
        const id = this.#callId(event.data.call_id, name, true);
        this.#started.add(id);
        const start = toolCallStart(id, name, args, this.#workspace);
        const terminalId = this.#terminals.get(id);
        if (terminalId) start.content = [{ type: "terminal", terminalId }];
        return [...planUpdate(name, args), start];
      }
      case "usage":
        return usageUpdate(event.data, this.#window);
      case "final":
        this.#finish = event.data.finish_reason ?? null;
        return [];
      case "tool_end": {
        const { name, arguments: args, ok } = event.data;
        const id = this.#callId(event.data.call_id, name, false);
        const result = ok ? event.data.result : (event.data.error ?? event.data.result);
        const end = toolCallEnd(id, name, args, ok, result, this.#workspace);
        const terminalId = this.#terminals.get(id);
        if (terminalId) {
          // The terminal shows the output; a failure's message is added below it.
          const failure = ok ? [] : end.content as unknown[];
          end.content = [{ type: "terminal", terminalId }, ...failure];
        }
        return [end];
      }
      default:
        return [];
    }
  }
}
