/**
 * Private: the comma-command path of a turn. A prompt that starts with `,` is a command for the
 * configured runner (`AgentOptions.runCommand`), run at once on the turn's fork: no model call
 * and no `loop.start`; the fork is merged and the output streams as one text answer.
 *
 * @module
 */
import type { AsyncStreamEvents } from "../kernel/stream.ts";
import type { Prompt, TurnState } from "../kernel/turn.ts";
import type { Tape } from "../tape/tape.ts";
import type { AgentOptions } from "./agent_options.ts";
import { textEvents } from "./text_events.ts";

/** The command line of a comma prompt (without the comma), or null when the prompt is none. */
export function commaLine(prompt: Prompt): string | null {
  return typeof prompt === "string" && prompt.trim().startsWith(",")
    ? prompt.trim().slice(1)
    : null;
}

/** What {@link runCommaTurn} runs. */
export interface CommaTurn {
  /** The command line, without the comma. */
  line: string;
  /** The turn state. */
  state: TurnState;
  /** Cancels the command. */
  signal?: AbortSignal;
}

/**
 * Runs a comma command on the turn's `fork`, merges the fork and answers with the command's
 * output.
 *
 * @throws Error when no command runner is configured
 */
export async function runCommaTurn(
  options: AgentOptions,
  fork: Tape,
  turn: CommaTurn,
): Promise<AsyncStreamEvents> {
  const run = options.runCommand;
  if (!run) {
    throw new Error("comma commands are not available: no command runner is configured");
  }
  const output = await run({
    line: turn.line,
    tape: fork,
    state: turn.state,
    signal: turn.signal,
  });
  await fork[Symbol.asyncDispose]();
  return textEvents(output, true);
}
