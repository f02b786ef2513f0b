/**
 * Which tapes of the console's list have a turn waiting for approval, and how many requests each
 * has pending: the workspace's approvals index names every session that ever asked, so only those
 * sessions' tapes are read (not every tape of the store).
 *
 * @module
 */
import { APPROVAL_INDEX_SESSION, askingSessions, pendingApprovals } from "../../agent/approvals.ts";
import { sessionTapeName } from "../../tape/naming.ts";
import type { TapeStore } from "../../tape/store.ts";
import { Tape } from "../../tape/tape.ts";

/** Pending approval requests by tape name, for the `names` that have any. */
export async function waitingApprovals(
  store: TapeStore,
  workspace: string,
  names: readonly string[],
  now: Date = new Date(),
): Promise<Map<string, number>> {
  const waiting = new Map<string, number>();
  const tapes = await store.listTapes();
  const indexTape = sessionTapeName(APPROVAL_INDEX_SESSION, workspace);
  if (!tapes.includes(indexTape)) return waiting;
  const wanted = new Set(names);
  const index = new Tape({ store }).scoped(indexTape);
  for (const session of await askingSessions(index)) {
    const name = sessionTapeName(session, workspace);
    if (!wanted.has(name) || !tapes.includes(name)) continue;
    const count = (await pendingApprovals(new Tape({ store }).scoped(name), now)).length;
    if (count > 0) waiting.set(name, count);
  }
  return waiting;
}
