/**
 * The request of one model call (the model runner's first step): the history read from the tape
 * (copies: hooks and clients may change them), the system prompt and the step's new messages,
 * and `beforeLlmCall`.
 *
 * @module
 */
import type { AgentHooks } from "../kernel/agent_hooks.ts";
import type { Prompt, TurnState } from "../kernel/turn.ts";
import type { Tool } from "../tools/tool.ts";
import { LlmCallRequest } from "../kernel/agent_hooks.ts";
import { BubError } from "../kernel/errors.ts";
import type { Tape } from "../tape/tape.ts";
import { newRunId } from "./run_id.ts";
import { toolListParts } from "./_tool_schemas.ts";

/** A call's request, ready for the provider (or answered by `beforeLlmCall`). */
export interface PreparedCall {
  runId: string;
  /** The step's new user messages (steering, then the prompt). */
  newMessages: Record<string, unknown>[];
  request: LlmCallRequest;
  /** The decision's text when `beforeLlmCall` answered instead of the model, else null. */
  decided: string | null;
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
  maxTokens: number | null;
  /** The system prompt to record with the call (null: recorded already). */
  systemEntry(tape: Tape, systemPrompt: string): string | null;
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
  try {
    history = await tape.readMessages();
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
  return { runId, newMessages, request, decided };
}
