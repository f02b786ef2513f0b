/**
 * Private: resuming a turn whose held calls are all decided, from the tape alone. The decisions
 * are on the asking session's tape; whoever runs that session next (this process, another one,
 * the cluster instance holding its lease) reads them back and claims the resume with a
 * compare-and-swap append of `approval.resumed {step, call_ids}` ({@link claimResume}), so of
 * two processes that see "every held call decided" at once only one resumes. A decision from
 * another session reaches the asking one as an inbound of its own ({@link resumeInbound}): a
 * `,approvals` in the asking chat, which lists nothing and resumes the turn.
 *
 * @module
 */
import { readApprovals } from "../agent/approvals.ts";
import { inboxRouteOf } from "../channels/cluster/inbox_route.ts";
import { ChannelMessage } from "../kernel/channel_message.ts";
import { AsyncStreamEvents, type StreamEvent } from "../kernel/stream.ts";
import type { TurnState } from "../kernel/turn.ts";
import { eventEntry } from "../tape/entry.ts";
import { forkJournalOf } from "../tape/fork_journal.ts";
import { appendIfLast, lastIdOf } from "../tape/store.ts";
import type { Tape } from "../tape/tape.ts";
import {
  contended,
  DECISION_ATTEMPTS,
  said,
  type SettlePlan,
  settlePlan,
} from "./_approval_decisions.ts";
import type { BuiltinRuntime } from "./runtime.ts";

/** The event that claims a suspended step's resume (after its `tool_call`, on the session tape). */
export const APPROVAL_RESUMED = "approval.resumed";

/**
 * The context key of an inbound made to resume a turn decided in another session (its value:
 * the deciding approval id). Its `,approvals` answers nothing when there is nothing to resume.
 */
export const APPROVAL_RESUME_CONTEXT_KEY = "approval_resume";

/** The turn-state key set for such an inbound (by `loadState`). */
export const APPROVAL_RESUME_STATE_KEY = "_runtime_approval_resume";

/** A claimed resume: the outcomes of the step's held calls and how each was decided. */
export interface ResumeClaim {
  /** The plan (no call waits). */
  plan: SettlePlan;
  /** `<id> approved by 42`, one per decided request of the step. */
  decided: string[];
}

/**
 * How long a claim holds without a journaled fork on the tape: a resume journals its first entry
 * right after claiming, so a claim this old with no journal is one whose claimer died in between
 * (the resume is claimed again rather than wedged).
 */
export const CLAIM_HOLD_MS = 60_000;

/**
 * True when an `approval.resumed` follows the newest `tool_call` of `tape` and still holds: it is
 * recent, or a fork of the tape is journaled (the resume runs, or crash recovery takes it over).
 */
async function claimed(tape: Tape, now: number): Promise<boolean> {
  const entries = await tape.query().all();
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    if (entry.kind === "tool_call" || entry.kind === "tool_result") return false;
    if (entry.kind !== "event" || entry.payload.name !== APPROVAL_RESUMED) continue;
    if (now - Date.parse(entry.date) < CLAIM_HOLD_MS) return true;
    const journal = forkJournalOf(tape.store);
    return journal !== null && (await journal.journalPending(tape.name)).length > 0;
  }
  return false;
}

/**
 * Claims the resume of the session's suspended step when every held call of it is decided and
 * nobody claimed it yet: the claim is appended only when the tape's newest id is still the one
 * read before (else all is read again). Null when there is nothing to resume here (no suspended
 * step, a call still waits, or another process claimed it and its claim holds).
 */
export async function claimResume(
  tape: Tape,
  sessionId: string,
  now: () => number = Date.now,
): Promise<ResumeClaim | null> {
  for (let attempt = 1;; attempt++) {
    const lastId = await lastIdOf(tape.store, tape.name);
    if (await claimed(tape, now())) return null;
    const { requests } = await readApprovals(tape);
    const plan = await settlePlan(tape, requests);
    if (plan === null || plan.waiting.length > 0 || plan.held.length === 0) return null;
    const callIds = plan.held;
    const entry = eventEntry(APPROVAL_RESUMED, { step: plan.step, call_ids: callIds });
    if (await appendIfLast(tape.store, tape.name, [entry], lastId)) {
      const decided = requests.flatMap(({ request, decision }) =>
        decision !== null && request.call_id !== null && callIds.includes(request.call_id)
          ? [`${request.id} ${said(decision)}`]
          : []
      );
      return { plan, decided };
    }
    if (attempt >= DECISION_ATTEMPTS) throw contended(sessionId);
  }
}

/** Where the asking session answers. */
export interface AskingSession {
  sessionId: string;
  channel: string | null;
  chatId: string | null;
  owner: string | null;
  /** The approval id whose decision completed the step. */
  id: string;
}

/**
 * The inbound that resumes the asking session's turn where that session runs: `,approvals`
 * from its owner in its chat, marked (see {@link APPROVAL_RESUME_CONTEXT_KEY}).
 */
export function resumeInbound(asking: AskingSession): ChannelMessage {
  return new ChannelMessage({
    sessionId: asking.sessionId,
    channel: asking.channel ?? "default",
    chatId: asking.chatId ?? "default",
    content: ",approvals",
    context: { sender_id: asking.owner ?? "", [APPROVAL_RESUME_CONTEXT_KEY]: asking.id },
  });
}

/** An empty answer (nothing goes to the chat). */
export function silent(): AsyncStreamEvents {
  return new AsyncStreamEvents((async function* () {})());
}

/** `text` as an answer, followed by the stream `rest` (a resumed turn) when given. */
export function textEvents(text: string, rest: AsyncStreamEvents | null = null): AsyncStreamEvents {
  async function* events(): AsyncGenerator<StreamEvent> {
    yield { kind: "text", data: { delta: text } };
    if (rest === null) {
      yield { kind: "final", data: { text, ok: true } };
      return;
    }
    yield { kind: "text", data: { delta: "\n\n" } };
    yield* rest;
  }
  return new AsyncStreamEvents(events(), rest === null ? {} : { state: rest.state });
}

/**
 * Claims the resume of the session's suspended step ({@link claimResume}) and resumes it in this
 * turn: `answer(claim)`, then the resumed turn's stream. Null when there is nothing to resume.
 */
export async function resumeHere(
  runtime: BuiltinRuntime,
  turn: { sessionId: string; state: TurnState; signal?: AbortSignal; now?: () => number },
  answer: (claim: ResumeClaim) => string,
): Promise<AsyncStreamEvents | null> {
  const { sessionId, state, signal } = turn;
  const tape = runtime.agent.sessionTape(sessionId, state);
  const claim = await claimResume(tape, sessionId, turn.now);
  if (claim === null) return null;
  const outcomes = claim.plan.outcomes;
  const resumed = await runtime.agent.resumeTurn({ sessionId, state, outcomes, signal });
  return textEvents(answer(claim), resumed);
}

/**
 * Has the asking session resume its turn: its {@link resumeInbound} goes to the cluster's inbox
 * (the instance holding the session's lease runs it, fenced), or runs in this process when there
 * is no cluster or the session is an interface's. Says where the answer goes.
 */
export async function resumeElsewhere(
  runtime: BuiltinRuntime,
  asking: AskingSession,
): Promise<string> {
  const target = `${asking.channel ?? "default"}:${asking.chatId ?? "default"}`;
  const inbound = resumeInbound(asking);
  const route = inboxRouteOf(runtime.framework);
  if (route !== null && await route(inbound)) {
    return `The turn goes on in ${target}; its answer goes there.`;
  }
  await runtime.framework.processInbound(inbound, { stream: true });
  return `The answer went to ${target}.`;
}
