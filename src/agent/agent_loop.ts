/**
 * The agent loop: steps of model calls until the model answers without tools, with continuation
 * prompts, steering, a step budget and one automatic handoff on context-length errors.
 *
 * @module
 */
import { getLogger } from "../_internal/log.ts";
import { redactKnownSecrets } from "../_internal/secrets.ts";
import { pad, utcSecondText } from "../_internal/utc_text.ts";
import type { SteeringInbox } from "../kernel/channel.ts";
import { isCancellation } from "../kernel/agent_hooks.ts";
import { AsyncStreamEvents, type StreamEvent, StreamState } from "../kernel/stream.ts";
import type { HeldCall } from "../kernel/stream_events.ts";
import type { Prompt, TurnState } from "../kernel/turn.ts";
import type { Tape } from "../tape/tape.ts";
import { isContextLengthError } from "./context_length.ts";

const logger = getLogger(["bub", "agent"]);

/**
 * How many automatic handoffs one loop may make.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MAX_AUTO_HANDOFF_RETRIES } from "@bub/core/agent";
 * assert.equal(MAX_AUTO_HANDOFF_RETRIES, 1); // one handoff when the context overflows, then fail
 * ```
 */
export const MAX_AUTO_HANDOFF_RETRIES = 1;

/**
 * One step's event stream (what `ModelRunner.run` returns).
 *
 * @example
 * ```ts
 * import { AsyncStreamEvents } from "@bub/core";
 * import type { StepRunner } from "@bub/core/agent";
 * const answer: StepRunner = () =>
 *   new AsyncStreamEvents((async function* () {
 *     yield { kind: "text" as const, data: { delta: "done" } };
 *   })());
 * ```
 */
export type StepRunner = (prompt: Prompt | null) => AsyncStreamEvents | Promise<AsyncStreamEvents>;

/**
 * Inputs of {@link agentLoop}.
 *
 * @example
 * ```ts
 * import { AsyncStreamEvents, InMemoryTapeStore, Tape } from "@bub/core";
 * import type { AgentLoopArgs } from "@bub/core/agent";
 * const args: AgentLoopArgs = {
 *   tape: new Tape({ store: new InMemoryTapeStore() }).scoped("t"),
 *   state: {},
 *   prompt: "hi",
 *   maxSteps: 5,
 *   runStep: () => new AsyncStreamEvents((async function* () {})()),
 *   continuePrompt: () => Promise.resolve(null),
 *   model: "test:m",
 * };
 * ```
 */
export interface AgentLoopArgs {
  /** The turn's tape (a fork of the session tape). */
  tape: Tape;
  /** The turn state. */
  state: TurnState;
  /** The turn's prompt (sent again after an automatic handoff). */
  prompt: Prompt;
  /** Steps per turn. */
  maxSteps: number;
  /** Runs one step. */
  runStep: StepRunner;
  /** The next step's user message, or null for none (the `continuePrompt` hook). */
  continuePrompt: (
    args: { prompt: Prompt | null; tape: Tape; state: StreamState },
  ) => Promise<string | null>;
  /** The model, for logs. */
  model: string;
  /** The turn's cancellation signal: once aborted, a failing step is a cancellation, not an error. */
  signal?: AbortSignal;
  /** Runs once when the loop's stream closes (see `AsyncStreamEventsOptions.onClose`). */
  onClose?: () => void | Promise<void>;
  /**
   * A step held tool calls for approval: records the requests and returns the text that tells
   * the user (the turn then ends, suspended). Default: a short notice, nothing recorded.
   */
  onSuspend?: (args: { step: number; held: HeldCall[] }) => Promise<string>;
  /**
   * Makes the turn's records durable before a suspension is announced (the agent merges its
   * fork), so that the id a user is shown is on the session tape even if the process dies next.
   */
  commit?: () => Promise<void>;
  /** Continues a suspended turn: its step number and the runner that finishes that step. */
  resume?: { step: number; run: () => AsyncStreamEvents | Promise<AsyncStreamEvents> };
}

/** Now as `YYYY-MM-DDTHH:MM:SS.mmm+00:00` (`toISOString` with `+00:00` for `Z`). */
function utcNow(): string {
  const ms = Date.now();
  const second = Math.floor(ms / 1000);
  // Joined: one flat string (the tape keeps it; a concatenation this long is a rope).
  return [utcSecondText(second), ".", pad(ms - second * 1000, 3), "+00:00"].join("");
}

/**
 * Runs the loop lazily as an event stream. Contract: every event of every step is re-yielded;
 * `loop.step` events record each step's outcome; a cancelled step records nothing more; a step
 * that held tool calls for approval ends the loop with a `loop.step` of status `suspended`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { AsyncStreamEvents, InMemoryTapeStore, Tape } from "@bub/core";
 * import { agentLoop } from "@bub/core/agent";
 * const tape = new Tape({ store: new InMemoryTapeStore() }).scoped("t");
 * const kinds: string[] = [];
 * const loop = agentLoop({
 *   tape,
 *   state: {},
 *   prompt: "hi",
 *   maxSteps: 3,
 *   runStep: () =>
 *     new AsyncStreamEvents((async function* () {
 *       yield { kind: "text" as const, data: { delta: "hello" } };
 *     })()),
 *   continuePrompt: () => Promise.resolve(null),
 *   model: "test:m",
 * });
 * for await (const event of loop) kinds.push(event.kind);
 * assert.ok(kinds.includes("text"));
 * ```
 */
export function agentLoop(args: AgentLoopArgs): AsyncStreamEvents {
  const streamState = new StreamState();
  return new AsyncStreamEvents(steps(args, streamState), {
    state: streamState,
    onClose: args.onClose,
  });
}

async function* steps(args: AgentLoopArgs, streamState: StreamState): AsyncGenerator<StreamEvent> {
  // The generator keeps to the order of events; the tape records are in functions below, so
  // that JavaScriptCore compiles a smaller generator.
  const { tape, state, maxSteps } = args;
  let nextPrompt: Prompt | null = args.prompt;
  let handoffBudget = MAX_AUTO_HANDOFF_RETRIES;
  let resume = args.resume ?? null;
  for (let step = resume?.step ?? 1; step <= maxSteps; step++) {
    const start = performance.now();
    logger.info("loop.step step={step} tape={tape} model={model}", {
      step,
      tape: tape.name,
      model: args.model,
    });
    // A resumed step started before the turn was suspended.
    if (resume === null) await tape.appendEvent("loop.step.start", { step, prompt: nextPrompt });
    yield { kind: "step_start", data: { step } };
    let shouldContinue = false;
    let held: HeldCall[] = [];
    let output: AsyncStreamEvents | null = null;
    try {
      output = resume === null ? await args.runStep(nextPrompt) : await resume.run();
      resume = null;
      for await (const event of output) {
        if (event.kind === "error") {
          await recordStep(tape, step, start, "error", String(event.data.message ?? ""));
        } else if (event.kind === "final") {
          shouldContinue = nonEmpty(event.data.tool_calls) || nonEmpty(event.data.tool_results);
          held = event.data.held ?? [];
        }
        yield event;
      }
    } catch (error) {
      if (isCancellation(error) || args.signal?.aborted) throw error;
      const message = String(error instanceof Error ? (error.message || String(error)) : error);
      if (handoffBudget > 0 && isContextLengthError(message)) {
        handoffBudget--;
        await autoHandoff(tape, step, start, message);
        yield stepEnd(step, "auto_handoff", start);
        nextPrompt = args.prompt;
        continue;
      }
      await recordStep(tape, step, start, "error", message);
      throw error;
    }
    streamState.error = output.error;
    streamState.usage = output.usage;
    if (held.length > 0) {
      const text = args.onSuspend
        ? await args.onSuspend({ step, held })
        : `Waiting for approval of ${held.length} tool call(s).`;
      await recordStep(tape, step, start, "suspended");
      await args.commit?.();
      yield { kind: "text", data: { delta: text } };
      yield stepEnd(step, "suspended", start);
      return;
    }
    const inbox = state._runtime_steering_inbox as SteeringInbox | null | undefined;
    if (inbox && inbox.messageCount(state) > 0) shouldContinue = true;
    if (!shouldContinue) {
      await recordStep(tape, step, start, "ok");
      yield stepEnd(step, "ok", start);
      return;
    }
    nextPrompt = await args.continuePrompt({ prompt: nextPrompt, tape, state: streamState });
    await recordStep(tape, step, start, "continue");
    yield stepEnd(step, "continue", start);
  }
  throw new Error(`max_steps_reached=${maxSteps}`);
}

type StepStatus = "ok" | "continue" | "auto_handoff" | "suspended";

function elapsedSince(start: number): number {
  return Math.trunc(performance.now() - start);
}

/**
 * The step's `loop.step` event: its status, elapsed time, error message (if any, with known
 * secrets redacted) and date.
 */
async function recordStep(
  tape: Tape,
  step: number,
  start: number,
  status: string,
  error?: string,
): Promise<void> {
  const data: Record<string, unknown> = { step, elapsed_ms: elapsedSince(start), status };
  if (error !== undefined) data.error = redactKnownSecrets(error);
  data.date = utcNow();
  await tape.appendEvent("loop.step", data);
}

/** The automatic handoff after a context-length error, and its `loop.step` event. */
async function autoHandoff(tape: Tape, step: number, start: number, message: string) {
  logger.warn("auto_handoff: context length exceeded, step={step} error={error}", {
    step,
    error: message,
  });
  await tape.handoff({
    name: "auto_handoff/context_overflow",
    state: { reason: "context_length_exceeded", error: redactKnownSecrets(message) },
  });
  await recordStep(tape, step, start, "auto_handoff", message);
}

function stepEnd(step: number, status: StepStatus, start: number): StreamEvent {
  return { kind: "step_end", data: { step, status, elapsed_ms: elapsedSince(start) } };
}

function nonEmpty(value: unknown): boolean {
  return Array.isArray(value) ? value.length > 0 : Boolean(value);
}
