/**
 * The approval comma commands: `,approve <id> [always]`, `,deny <id> [reason]` and
 * `,approvals`. An id is found through the workspace's approvals index tape, so a decision may
 * come from any session, channel or process; the decision is recorded on the asking session's
 * tape, and once every held call of its suspended step is decided the turn resumes there, from
 * the tape (`_approval_resume.ts`: the resume is claimed once, by a compare-and-swap): in this
 * turn's stream when the decision came from the same session, else as a turn of the asking
 * session (an inbound of its own, through the cluster's inbox when there is one) whose answer
 * goes to its channel and chat. Expiry is checked when a request is touched (decided or listed);
 * an expired request is recorded `expired` then.
 *
 * @module
 */
import { getLogger } from "../_internal/log.ts";
import {
  APPROVAL_INDEX_SESSION,
  type ApprovalRequest,
  findApprovalSession,
  readApprovals,
  TURN_ORIGIN_STATE_KEY,
  turnOrigin,
} from "../agent/approvals.ts";
import type { AsyncStreamEvents } from "../kernel/stream.ts";
import type { TurnState } from "../kernel/turn.ts";
import { lastIdOf } from "../tape/store.ts";
import type { Tape } from "../tape/tape.ts";
import type { BuiltinRuntime } from "./runtime.ts";
import {
  APPROVAL_OUTCOME_STATE_KEY,
  type ApprovalOutcome,
  contended,
  DECISION_ATTEMPTS,
  decisionOf,
  decisionStatus,
  pendingOrExpired,
  recordIfLast,
  said,
  serialized,
  type SettlePlan,
  settlePlan,
  type Wanted,
} from "./_approval_decisions.ts";
import {
  APPROVAL_RESUME_CONTEXT_KEY,
  APPROVAL_RESUME_STATE_KEY,
  resumeElsewhere,
  resumeHere,
  silent,
  textEvents,
} from "./_approval_resume.ts";

export {
  APPROVAL_OUTCOME_STATE_KEY,
  APPROVAL_RESUME_CONTEXT_KEY,
  APPROVAL_RESUME_STATE_KEY,
  type ApprovalOutcome,
};

const logger = getLogger(["bub", "approvals"]);

/** The turn-state key that says the session's last turn is suspended (set by `loadState`). */
export const SUSPENDED_STATE_KEY = "_runtime_turn_suspended";

/** The turn-state key that says the answer is the pending-approvals notice (see `loadState`). */
export const APPROVAL_NOTICE_STATE_KEY = "_runtime_approval_notice";

/** True for `,approve`, `,deny` and `,approvals` lines. */
export function isApprovalCommand(text: string): boolean {
  return /^\s*,(approve|deny|approvals)(\s|$)/.test(text);
}

/** What a command runs with. */
export interface ApprovalCommandArgs {
  /** The line, with its comma. */
  line: string;
  /** The session the line came from. */
  sessionId: string;
  /** The turn state (its origin names the decider). */
  state: TurnState;
  /** Cancels a resumed turn. */
  signal?: AbortSignal;
  /** The clock. Default `Date.now`. */
  now?: () => number;
}

/** Runs an approval command; its answer (and a resumed turn of this session) as a stream. */
export async function runApprovalCommand(
  runtime: BuiltinRuntime,
  args: ApprovalCommandArgs,
): Promise<AsyncStreamEvents> {
  const [name = "", id = "", ...rest] = args.line.trim().slice(1).split(/\s+/);
  const deps = new Approvals(runtime, args);
  if (name === "approvals") {
    const blocked = args.state[SUSPENDED_STATE_KEY] === true && !isApprovalCommand(args.line);
    return await serialized(runtime, args.sessionId, () => deps.list(blocked));
  }
  if (id === "") {
    return textEvents(`Usage: ,${name} <id>${name === "deny" ? " [reason]" : " [always]"}`);
  }
  if (name === "approve" && rest.length > 0 && (rest.length > 1 || rest[0] !== "always")) {
    return textEvents(`Usage: ,approve <id> [always] (got "${rest.join(" ")}")`);
  }
  const decision = name === "approve"
    ? { decision: "approve" as const, always: rest[0] === "always" }
    : { decision: "deny" as const, reason: rest.join(" ") };
  return await deps.decide(id, decision);
}

/** The answer to a message sent while the session's turn waits for approvals. */
export function runPendingNotice(
  runtime: BuiltinRuntime,
  args: ApprovalCommandArgs,
): Promise<AsyncStreamEvents> {
  const deps = new Approvals(runtime, args);
  // Bub's own answer: it reaches the user even where the model answers through a tool.
  args.state[APPROVAL_NOTICE_STATE_KEY] = true;
  return serialized(runtime, args.sessionId, () => deps.list(true));
}

/** What runs once the session's lock is released. */
type Later = () => Promise<AsyncStreamEvents>;

/** One command's view of the approvals. */
class Approvals {
  #runtime: BuiltinRuntime;
  #args: ApprovalCommandArgs;
  #decider: string | null;

  constructor(runtime: BuiltinRuntime, args: ApprovalCommandArgs) {
    this.#runtime = runtime;
    this.#args = args;
    this.#decider = turnOrigin(args.state).sender;
  }

  #tape(sessionId: string): Tape {
    return this.#runtime.agent.sessionTape(sessionId, this.#args.state);
  }

  #now(): number {
    return (this.#args.now ?? Date.now)();
  }

  #mayDecide(request: ApprovalRequest): boolean {
    const decider = this.#decider;
    if (decider === null) return request.owner === null;
    return request.approvers.includes(decider) ||
      this.#runtime.approvalSettings.approvers.includes(decider);
  }

  /** Records how this command's decision went (for a channel that shows it, see the key). */
  #outcome(outcome: ApprovalOutcome): void {
    this.#args.state[APPROVAL_OUTCOME_STATE_KEY] = outcome;
  }

  /**
   * `,approvals`: the pending requests of this session. Expired ones are recorded so; when
   * nothing waits any more (decided here, elsewhere, or expired) the suspended turn resumes here,
   * once (see `claimResume`). `blocked`: the answer to a message that came while the turn waits.
   * The inbound that resumes a turn decided in another session answers only with the resume.
   */
  async list(blocked: boolean): Promise<AsyncStreamEvents> {
    const sessionId = this.#args.sessionId;
    const tape = this.#tape(sessionId);
    const quiet = this.#args.state[APPROVAL_RESUME_STATE_KEY] === true;
    for (let attempt = 1;; attempt++) {
      const lastId = await lastIdOf(tape.store, tape.name);
      const { requests } = await readApprovals(tape);
      const { lines, expired } = pendingOrExpired(requests, this.#now());
      const head = blocked
        ? "This session's turn waits for approval; decide first (,approve <id> / ,deny <id>):"
        : "Pending approvals (,approve <id> / ,deny <id>):";
      let text = lines.length === 0
        ? "No pending approvals in this session."
        : `${head}\n${lines.join("\n")}`;
      if (expired.length > 0) {
        if (!(await recordIfLast(tape, expired, lastId))) {
          if (attempt < DECISION_ATTEMPTS) continue;
          throw contended(sessionId);
        }
        text = `${expired.length} approval(s) expired; the model is told so.\n${text}`;
      } else if (lines.length > 0) return quiet ? silent() : textEvents(text);
      const resumed = await resumeHere(
        this.#runtime,
        this.#args,
        (claim) =>
          `${
            expired.length > 0
              ? `${expired.length} approval(s) expired; the model is told so.`
              : claim.decided.map((line) => `Approval ${line}.`).join("\n")
          } The turn goes on.`,
      );
      return resumed ?? (quiet && expired.length === 0 ? silent() : textEvents(text));
    }
  }

  /** `,approve` / `,deny`: records the decision and resumes the turn once its step is decided. */
  async decide(id: string, wanted: Wanted): Promise<AsyncStreamEvents> {
    const sessionId = await findApprovalSession(this.#tape(APPROVAL_INDEX_SESSION), id);
    const unknown = `Unknown approval id "${id}". ,approvals lists the pending ones.`;
    if (sessionId === null) {
      this.#outcome({ id, status: "unknown" });
      return textEvents(unknown);
    }
    const decided = await serialized(
      this.#runtime,
      sessionId,
      () => this.#decideIn(sessionId, id, wanted, unknown),
    );
    // The asking session's own turn takes its lock again (the resume of another session).
    return typeof decided === "function" ? await decided() : decided;
  }

  /**
   * Takes the decision as a compare-and-swap on the asking session's tape: the tape's newest id
   * is read, then its approvals; the decision is recorded only when nothing was appended since
   * (else all is read again). So of two processes deciding the same id at once, the first
   * recorded wins and the other is told it was already decided; and of decisions of one step's
   * calls, only the one that leaves nothing undecided resumes the turn.
   */
  async #decideIn(
    sessionId: string,
    id: string,
    wanted: Wanted,
    unknown: string,
  ): Promise<AsyncStreamEvents | Later> {
    const tape = this.#tape(sessionId);
    for (let attempt = 1;; attempt++) {
      const lastId = await lastIdOf(tape.store, tape.name);
      const { requests } = await readApprovals(tape);
      const item = requests.find((entry) => entry.request.id === id);
      if (!item) {
        this.#outcome({ id, status: "unknown" });
        return textEvents(unknown);
      }
      const { request } = item;
      if (!this.#mayDecide(request)) {
        logger.warn("approval.refused id={id} session={session} sender={sender}", {
          id,
          session: sessionId,
          sender: this.#decider ?? "-",
        });
        this.#outcome({ id, status: "refused" });
        return textEvents(
          `You may not decide approval ${id}: only the session's owner and the configured ` +
            "approvers can.",
        );
      }
      if (item.decision !== null) {
        this.#outcome({ id, status: "already_decided", by: said(item.decision) });
        return textEvents(`Approval ${id} was already decided: ${said(item.decision)}.`);
      }
      const { decision, answer } = decisionOf(request, wanted, this.#decider, this.#now());
      item.decision = decision;
      const plan = await settlePlan(tape, requests);
      if (!(await recordIfLast(tape, [{ request, decision }], lastId))) {
        if (attempt < DECISION_ATTEMPTS) continue;
        throw contended(sessionId);
      }
      this.#outcome({ id, status: decisionStatus(decision), by: said(decision) });
      return await this.#settle(sessionId, request, answer, plan);
    }
  }

  /**
   * Resumes the asking session's turn when the plan says every held call of its step is decided:
   * here when the decision came from that session (claimed once, see `claimResume`), else by an
   * inbound of that session (through the cluster's inbox when this process is a cluster instance:
   * the instance holding the session's lease resumes it under its fence), which reads the
   * decisions back from the tape.
   */
  async #settle(
    sessionId: string,
    request: ApprovalRequest,
    answer: string,
    plan: SettlePlan | null,
  ): Promise<AsyncStreamEvents | Later> {
    if (plan === null) return textEvents(answer);
    if (plan.waiting.length > 0) {
      const next = plan.waiting.map((other) => `,approve ${other}`).join(", ");
      return textEvents(`${answer} The turn goes on once the rest is decided: ${next}.`);
    }
    if (sessionId === this.#args.sessionId) {
      // Null: another process resumed it first.
      return await resumeHere(this.#runtime, this.#args, () => answer) ?? textEvents(answer);
    }
    const asking = {
      sessionId,
      channel: request.channel,
      chatId: request.chat_id,
      owner: request.owner,
      id: request.id,
    };
    // After the lock: the asking session's turn takes it (in this process).
    return async () => textEvents(`${answer} ${await resumeElsewhere(this.#runtime, asking)}`);
  }
}

export { TURN_ORIGIN_STATE_KEY };
