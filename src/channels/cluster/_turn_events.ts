/**
 * The events a cluster instance records on a session's tape around the turns of its inbox
 * messages.
 *
 * @module
 */

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
