/**
 * The events a cluster instance records on a session's tape around the turns of its inbox
 * messages, and the record of a dead owner's interrupted turn.
 *
 * @module
 */
import { getLogger } from "../../_internal/log.ts";
import { eventEntry } from "../../tape/entry.ts";
import type { TapeLease } from "../../tape/postgres_store.ts";
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

/**
 * A started turn of a pending message that never completed (a dead owner's): records
 * {@link TURN_INTERRUPTED} on `tape` and returns the message id, else null. `started` is the
 * data of the session's newest {@link TURN_STARTED} as the claim read it (undefined: read it).
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
): Promise<number | null> {
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
  await store.appendMany(tape, [
    eventEntry(TURN_INTERRUPTED, {
      message_id: id,
      owner: data?.owner ?? null,
      epoch: data?.epoch ?? null,
      next_owner: lease.owner,
      next_epoch: lease.epoch,
    }),
  ]);
  return id;
}
