/**
 * The events a cluster instance records on a session's tape around the turns of its inbox
 * messages, and the record of a dead owner's interrupted turn: a turn that started and never
 * completed, which may also have run to its end (its fork merged) before its owner died.
 *
 * @module
 */
import { getLogger } from "../../_internal/log.ts";
import { isRecord } from "../../_internal/object.ts";
import { BubError } from "../../kernel/errors.ts";
import { eventEntry, type TapeEntry } from "../../tape/entry.ts";
import type { TapeLease } from "../../tape/postgres_store.ts";
import { TapeQuery } from "../../tape/query.ts";
import type { FencedTapeStore } from "./_fenced_store.ts";

const logger = getLogger(["bub", "channels", "cluster"]);

/** The event a turn starts with (`data.message_id`). */
export const TURN_STARTED = "cluster.turn_started";
/** The event that ends a turn, committed with its messages' completion (`data.message_ids`). */
export const TURN_COMPLETED = "cluster.turn_completed";
/** The event of an inbox row that cannot be decoded, completed without a turn. */
export const MESSAGE_REJECTED = "cluster.message_rejected";
/**
 * The event a new owner records for a started turn that never completed (`data.message_id`).
 * (Before issue 30 it was named `turn.interrupted`, the name of crash-safe resume's adoption
 * event `{fork, step, calls}`; `planInterruptedTurn` tells an old one apart by its shape.)
 */
export const TURN_INTERRUPTED = "cluster.turn_interrupted";

/** A dead owner's turn that never completed (see {@link recordInterruption}). */
export interface Interruption {
  /** The inbox message whose turn it was. */
  messageId: number;
  /**
   * The turn's answer when the turn ran to its end (its fork merged, its last step answered)
   * before the owner died without completing the message; null when it did not.
   */
  answer: string | null;
}

function eventData(entry: TapeEntry, name: string): Record<string, unknown> | null {
  if (entry.kind !== "event" || entry.payload.name !== name) return null;
  return isRecord(entry.payload.data) ? entry.payload.data : {};
}

function assistantText(entry: TapeEntry): string {
  if (entry.kind !== "message" || entry.payload.role !== "assistant") return "";
  const content = entry.payload.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) =>
    isRecord(part) && part.type === "text" && typeof part.text === "string" ? part.text : ""
  ).join("");
}

/**
 * The answer of a dead owner's turn that ran to its end, or null. `entries` are the session
 * tape's newest entries (at least those since the dead owner's {@link TURN_STARTED}); `own` is
 * the lease of the new owner, whose claim may have recorded a {@link TURN_STARTED} of its own
 * since. The turn is the one the newest `loop.start` after the dead owner's {@link TURN_STARTED}
 * began (with what a resume after an adoption added to it); it ended when its newest `loop.step`
 * says `ok`; its answer is the text of its assistant messages, as its stream said it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { eventEntry, messageEntry } from "../../tape/entry.ts";
 * import { finishedTurnAnswer } from "./_turn_events.ts";
 * const entries = [
 *   eventEntry("cluster.turn_started", { message_id: 7, owner: "A", epoch: 1 }),
 *   eventEntry("loop.start", { prompt: "hi" }),
 *   messageEntry({ role: "assistant", content: "hello" }),
 *   eventEntry("loop.step", { step: 1, status: "ok" }),
 *   eventEntry("cluster.turn_started", { message_id: 7, owner: "B", epoch: 2 }),
 * ];
 * assert.equal(finishedTurnAnswer(entries, { owner: "B", epoch: 2 }), "hello");
 * assert.equal(finishedTurnAnswer(entries.slice(0, 3), { owner: "B", epoch: 2 }), null);
 * ```
 */
export function finishedTurnAnswer(
  entries: readonly TapeEntry[],
  own: { owner: string; epoch: number },
): string | null {
  let start = -1;
  for (let i = entries.length - 1; i >= 0 && start < 0; i--) {
    const entry = entries[i]!;
    const started = eventData(entry, TURN_STARTED);
    if (started && (started.owner !== own.owner || started.epoch !== own.epoch)) return null;
    if (eventData(entry, TURN_COMPLETED)) return null;
    if (eventData(entry, "loop.start")) start = i;
  }
  if (start < 0) return null;
  let status: unknown = null;
  let answer = "";
  for (const entry of entries.slice(start + 1)) {
    const step = eventData(entry, "loop.step");
    if (step) status = step.status;
    answer += assistantText(entry);
  }
  return status === "ok" ? answer : null;
}

/** {@link finishedTurnAnswer} of `tape`'s entries since its last anchor (null without one). */
async function readFinishedAnswer(
  store: FencedTapeStore,
  tape: string,
  own: TapeLease,
): Promise<string | null> {
  try {
    const query = new TapeQuery(tape, store).lastAnchor().kinds("event", "message");
    return finishedTurnAnswer(await store.fetchAll(query), own);
  } catch (error) {
    if (BubError.isInstance(error) && error.kind === "not_found") return null; // no anchor
    throw error;
  }
}

/**
 * A started turn of a pending message that never completed (a dead owner's): records
 * {@link TURN_INTERRUPTED} on `tape` and returns the message id, with the turn's answer when the
 * turn ran to its end before its owner died (`answered: true` in the event); else null. `started`
 * is the data of the session's newest {@link TURN_STARTED} as the claim read it (undefined: read
 * it).
 */
export async function recordInterruption(
  store: FencedTapeStore,
  tape: string,
  lease: TapeLease,
  options: {
    started: Record<string, unknown> | null | undefined;
    pending: readonly number[];
    session: string;
  },
): Promise<Interruption | null> {
  let data = options.started ?? undefined;
  if (options.started === undefined) {
    const [started] = await store.latestEvents(tape, [TURN_STARTED]);
    data = started?.payload.data as Record<string, unknown> | undefined;
  }
  const id = Number(data?.message_id);
  if (!options.pending.includes(id)) return null;
  logger.warn("cluster.turn_interrupted session={session} message_id={id} owner={owner}", {
    session: options.session,
    id,
    owner: data?.owner,
  });
  // The owner may have died after its turn's fork merged and before the message completed: that
  // turn is not run again (its tools would run twice), its answer is delivered again.
  const answer = await readFinishedAnswer(store, tape, lease);
  await store.appendMany(tape, [
    eventEntry(TURN_INTERRUPTED, {
      message_id: id,
      owner: data?.owner ?? null,
      epoch: data?.epoch ?? null,
      next_owner: lease.owner,
      next_epoch: lease.epoch,
      ...(answer === null ? {} : { answered: true }),
    }),
  ]);
  return { messageId: id, answer };
}
