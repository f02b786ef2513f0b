/**
 * Private: the tape records of a step whose model call asked for tools, in two moments: the
 * step's system prompt, new user messages and `tool_call` entry before any tool runs
 * ({@link recordToolCalls}), and the `tool_result` entry and `run` event after them
 * ({@link recordToolResults}; also what a resumed step writes).
 *
 * @module
 */
import { buildChatEntries } from "../tape/info.ts";
import type { Tape } from "../tape/tape.ts";
import type { CallAnswer } from "./model_call.ts";
import type { CallSetup, ModelRunArgs, PreparedRequest } from "./model_request.ts";
import type { ChatUsage } from "./model_client.ts";

/**
 * Records a call that asked for tools before any of them runs: the system prompt (when the
 * turn's tape does not have it yet), the step's new messages and the `tool_call` entry.
 */
export function recordToolCalls(
  args: ModelRunArgs,
  prepared: PreparedRequest,
  answer: CallAnswer,
  setup: CallSetup,
): Promise<void> {
  const entries = buildChatEntries({
    runId: prepared.runId,
    systemPrompt: setup.systemEntry(args.tape, args.systemPrompt),
    newMessages: prepared.newMessages,
    toolCalls: answer.toolCalls,
  });
  entries.pop(); // the `run` event comes with the results
  return args.tape.appendMany(entries);
}

/** Records the results of a step's tool calls: the `tool_result` entry and the `run` event. */
export function recordToolResults(
  tape: Tape,
  runId: string,
  toolResults: readonly unknown[],
  call: { usage?: ChatUsage | null; provider?: string | null; model?: string | null } = {},
): Promise<void> {
  return tape.appendMany(buildChatEntries({
    runId,
    toolResults,
    usage: (call.usage ?? null) as Record<string, unknown> | null,
    provider: call.provider ?? null,
    model: call.model ?? null,
  }));
}
