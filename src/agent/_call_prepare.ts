/**
 * The request of one model call (the model runner's first step): the history read from the tape
 * (copies, or the kept messages themselves when nothing but Bub's own code can reach them), the
 * system prompt and the step's new messages, and `beforeLlmCall`.
 *
 * @module
 */
import type { AgentHooks } from "../kernel/agent_hooks.ts";
import type { Prompt, TurnState } from "../kernel/turn.ts";
import type { Tool } from "../tools/tool.ts";
import { LlmCallRequest } from "../kernel/agent_hooks.ts";
import { BubError } from "../kernel/errors.ts";
import { sharedMessages } from "../tape/_context_cache.ts";
import { Tape } from "../tape/tape.ts";
import { newRunId } from "./run_id.ts";
import { sharesHistory } from "./_shared_history.ts";
import { toolListParts } from "./_tool_schemas.ts";

/** A call's request, ready for the provider (or answered by `beforeLlmCall`). */
export interface PreparedCall {
  runId: string;
  /** The step's new user messages (steering, then the prompt). */
  newMessages: Record<string, unknown>[];
  request: LlmCallRequest;
  /** The decision's text when `beforeLlmCall` answered instead of the model, else null. */
  decided: string | null;
  /** History copies the client may take as they are (see `startModelCall`), or null. */
  copies: { history: readonly unknown[]; start: number } | null;
  /** True when the history holds the kept messages themselves (no copies; see `prepareCall`). */
  shared: boolean;
}

/** The step's inputs a request is built from (`ModelRunArgs`, see `model_runner.ts`). */
export interface CallInputs {
  tape: Tape;
  model: string;
  tools: readonly Tool[];
  systemPrompt: string;
  prompt: Prompt | null;
  steeringMessages?: readonly Prompt[];
  state: TurnState;
}

/** What {@link prepareCall} needs from the runner. */
export interface PrepareContext {
  hooks: AgentHooks | null;
  /** The client is Bub's own: it changes no message (`keepsMessages`). */
  takesCopies: boolean;
  maxTokens: number | null;
  /** The system prompt to record with the call (null: recorded already). */
  systemEntry(tape: Tape, systemPrompt: string): string | null;
}

/**
 * True when a call's history may be the kept messages themselves: sharing is on (Bun, see
 * `_shared_history.ts`), the client is Bub's own, the history is Bub's own context, and no agent
 * hook sees the request, before or after the call.
 */
function _sharesHistory(tape: Tape, context: PrepareContext): boolean {
  const { hooks } = context;
  return sharesHistory() && context.takesCopies &&
    tape.readMessages === Tape.prototype.readMessages &&
    (hooks === null || (!hooks.seesLlmRequests && !hooks.seesLlmResults));
}

/**
 * The call's request: the history read from the tape (a failed read is recorded), the messages
 * and `beforeLlmCall` (a decision is recorded and answered instead of the call).
 */
export async function prepareCall(
  args: CallInputs,
  context: PrepareContext,
): Promise<PreparedCall> {
  const { tape, tools, systemPrompt, prompt, state } = args;
  const { hooks } = context;
  const runId = newRunId();
  const newMessages: Record<string, unknown>[] = [];
  for (const content of args.steeringMessages ?? []) newMessages.push({ role: "user", content });
  if (prompt !== null) newMessages.push({ role: "user", content: prompt });
  let history: Record<string, unknown>[];
  let shared = false;
  try {
    const kept = _sharesHistory(tape, context)
      ? await sharedMessages(tape.store, tape.name, tape.context)
      : null;
    shared = kept !== null;
    history = kept ?? await tape.readMessages();
  } catch (error) {
    if (BubError.isInstance(error)) {
      await tape.recordChat({
        runId,
        systemPrompt: context.systemEntry(tape, systemPrompt),
        contextError: error,
        newMessages: [],
        error,
      });
    }
    throw error;
  }
  // `concat`, not spreads: one copy of the history's references (spreads iterate it).
  const head: Record<string, unknown>[] = systemPrompt
    ? [{ role: "system", content: systemPrompt }]
    : [];
  const messages = head.concat(history, newMessages);
  let request = new LlmCallRequest({
    runId,
    model: args.model,
    messages,
    toolNames: toolListParts(tools).names,
    maxTokens: context.maxTokens,
  });
  // No hook sees the request before the call and Bub's own `readMessages` made the history: its
  // copies reach the client as the tape's context made them (see `vouchCopies`).
  const quiet = (hooks === null || !hooks.seesLlmRequests) &&
    tape.readMessages === Tape.prototype.readMessages;
  let decided: string | null = null;
  if (hooks) {
    const [rewritten, decision] = await hooks.beforeLlmCall(request, state);
    request = rewritten;
    if (decision) {
      await tape.recordChat({
        runId,
        systemPrompt: context.systemEntry(tape, systemPrompt),
        newMessages,
        responseText: decision.text,
        model: request.model,
      });
      decided = decision.text;
    }
  }
  const copies = quiet && context.takesCopies && request.messages === messages
    ? { history, start: head.length }
    : null;
  return { runId, newMessages, request, decided, copies, shared };
}

/**
 * The request `afterLlmCall` sees: a hook registered since the call started gets copies of a
 * shared history (the kept messages stay out of its reach).
 */
export function requestForHooks(prepared: PreparedCall, hooks: AgentHooks | null): LlmCallRequest {
  const { request } = prepared;
  return prepared.shared && hooks?.seesLlmResults
    ? request.with({ messages: structuredClone(request.messages) })
    : request;
}
