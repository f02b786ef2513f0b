/**
 * Before a model call: the step's inputs, what the runner sets up once, and
 * {@link prepareRequest} — the history read from the tape, the system prompt, the step's new
 * messages and `beforeLlmCall` — which `model_call.ts` then sends.
 *
 * @module
 */
import type { AgentHooks } from "../kernel/agent_hooks.ts";
import { LlmCallRequest } from "../kernel/agent_hooks.ts";
import { BubError } from "../kernel/errors.ts";
import type { Prompt, TurnState } from "../kernel/turn.ts";
import { keptCopiesOf } from "../tape/message_source.ts";
import { Tape } from "../tape/tape.ts";
import type { ExecuteToolsOptions } from "../tools/executor.ts";
import type { Tool } from "../tools/tool.ts";
import type { ModelClient } from "./model_client.ts";
import { newRunId } from "./run_id.ts";
import type { KeptHistory } from "./providers/_chat_messages.ts";
import { toolListParts } from "./_tool_calls.ts";

/**
 * One step's inputs.
 *
 * @example
 * ```ts
 * import { InMemoryTapeStore, Tape } from "@bub/core";
 * import type { ModelRunArgs } from "@bub/core/agent";
 * const args: ModelRunArgs = {
 *   tape: new Tape({ store: new InMemoryTapeStore() }).scoped("t"),
 *   model: "openai:gpt-4o",
 *   tools: [],
 *   systemPrompt: "Be brief.",
 *   prompt: "hi",
 *   state: {},
 * };
 * ```
 */
export interface ModelRunArgs {
  /** The tape to read from and record on. */
  tape: Tape;
  /** The model of this call. */
  model: string;
  /** Model-facing tools of this step. */
  tools: readonly Tool[];
  /** The full system prompt. */
  systemPrompt: string;
  /** The user prompt, or null to continue the conversation without a new user message. */
  prompt: Prompt | null;
  /** Drained steering prompts, sent as user messages before the prompt. */
  steeringMessages?: readonly Prompt[];
  /** The turn state (hooks and tools see it). */
  state: TurnState;
  /** Cancels the call and the tools. */
  signal?: AbortSignal;
  /** Runs a call `beforeToolCall` asked about (see `ExecuteToolsOptions.approve`). */
  approve?: ExecuteToolsOptions["approve"];
}

/** What every call of a runner shares: its client, hooks and checked settings. */
export interface CallSetup {
  /** The client to call (traced). */
  client: ModelClient;
  /** The client is Bub's own (`isOwnClient`): it changes no message it is handed. */
  ownClient: boolean;
  hooks: AgentHooks | null;
  /** The runner's default model: only its calls fall back to {@link fallbackModels}. */
  defaultModel: string;
  fallbackModels: readonly string[];
  maxTokens: number | null;
  /** Extra per-call arguments. */
  completionArgs: Record<string, unknown> | null;
  timeoutSeconds: number | null;
  stallSeconds: number | null;
  maxAnswerBytes: number;
  /** The system prompt to record with a call, or null when the turn's tape has it already. */
  systemEntry(tape: Tape, systemPrompt: string): string | null;
}

/** A call's request, ready for the provider (or answered by `beforeLlmCall`). */
export interface PreparedRequest {
  runId: string;
  /** The step's new user messages (steering, then the prompt). */
  newMessages: Record<string, unknown>[];
  request: LlmCallRequest;
  /** The decision's text when `beforeLlmCall` answered instead of the model, else null. */
  decided: string | null;
  /** The history's copies as the tape's context made them, when only Bub's code has them. */
  keptHistory: KeptHistory | null;
}

/**
 * The call's request: the history read from the tape (copies: hooks and clients may change
 * them; a failed read is recorded), the system prompt, the step's new messages and
 * `beforeLlmCall` (a decision is recorded and answers instead of the model).
 */
export async function prepareRequest(
  args: ModelRunArgs,
  setup: CallSetup,
): Promise<PreparedRequest> {
  const { tape, systemPrompt, prompt } = args;
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
        systemPrompt: setup.systemEntry(tape, systemPrompt),
        contextError: error,
        newMessages: [],
        error,
      });
    }
    throw error;
  }
  const head: Record<string, unknown>[] = systemPrompt
    ? [{ role: "system", content: systemPrompt }]
    : [];
  const messages = head.concat(history, newMessages);
  let request = new LlmCallRequest({
    runId,
    model: args.model,
    messages,
    toolNames: toolListParts(args.tools).names,
    maxTokens: setup.maxTokens,
  });
  let decided: string | null = null;
  if (setup.hooks !== null) {
    const [rewritten, decision] = await setup.hooks.beforeLlmCall(request, args.state);
    request = rewritten;
    if (decision) {
      await tape.recordChat({
        runId,
        systemPrompt: setup.systemEntry(tape, systemPrompt),
        newMessages,
        responseText: decision.text,
        model: request.model,
      });
      decided = decision.text;
    }
  }
  const kept = request.messages === messages ? privateHistory(args.tape, history, setup) : null;
  const keptHistory = kept === null ? null : { ...kept, start: head.length };
  return { runId, newMessages, request, decided, keptHistory };
}

/**
 * The kept run `history` copies when no code but Bub's own can have changed a copy before the
 * body is built: the tape's own `readMessages` made them (a subclass may change them before it
 * returns them), no `beforeLlmCall` hook saw the request and the client is Bub's own. Then its
 * body takes the run's cached JSON instead of comparing thousands of copies with their sources
 * (at 1000 prior turns the comparison cost +22-27 % CPU per turn; without it +5 %).
 */
function privateHistory(
  tape: Tape,
  history: readonly unknown[],
  setup: CallSetup,
): ReturnType<typeof keptCopiesOf> {
  if (!setup.ownClient || setup.hooks?.seesLlmRequests) return null;
  return tape.readMessages === Tape.prototype.readMessages ? keptCopiesOf(history) : null;
}
