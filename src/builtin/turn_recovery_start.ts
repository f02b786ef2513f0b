/**
 * Resume at start: `bub gateway` and `bub chat`, once their channels listen, resume each turn a
 * crash interrupted in the workspace's sessions without waiting for a message, and deliver the
 * answer to the session's channel and chat. The turn's origin (session, channel, chat, sender)
 * is read from its fork's `loop.start` (`data.origin`); a turn of a channel this process does
 * not serve is left to the next process that serves its session (its next message resumes it
 * first, see `src/agent/turn_recovery.ts`).
 *
 * The answer goes through the turn pipeline like the answer to a message: an inbound made here
 * (marked, see {@link isRecoveryMessage}) runs `Agent.recoverTurn` instead of a new turn.
 *
 * @module
 */
import { getLogger } from "../_internal/log.ts";
import { interruptedOrigin, type RecordedOrigin } from "../agent/turn_recovery.ts";
import { ChannelMessage } from "../kernel/channel_message.ts";
import { forkJournalOf } from "../tape/fork_journal.ts";
import { listInterruptedTurns } from "../tape/interrupted.ts";
import { sessionTapeName } from "../tape/naming.ts";
import type { BuiltinRuntime } from "./runtime.ts";

const logger = getLogger(["bub", "recovery"]);

/** Inbound envelopes made here to resume a session's interrupted turn. */
const recoveries = new WeakSet<object>();

/** The turn-state key that says the turn resumes an interrupted one (set by `loadState`). */
export const RECOVER_STATE_KEY = "_runtime_recover_turn";

/** True for an inbound made by {@link resumeInterruptedSessions}. */
export function isRecoveryMessage(message: unknown): boolean {
  return typeof message === "object" && message !== null && recoveries.has(message);
}

/** Options of {@link resumeInterruptedSessions}. */
export interface ResumeAtStartOptions {
  /** True for a turn whose answer this process delivers (its channel is served here). */
  accept(origin: RecordedOrigin): boolean;
  /** Stream the answer to the channel, as the channel manager does its turns. Default false. */
  stream?: boolean;
  /** Stops before the next session. */
  signal?: AbortSignal;
}

/**
 * The origins of the workspace's sessions that have an interrupted turn (one per session, the
 * newest such turn's), in tape order.
 */
export async function interruptedSessions(runtime: BuiltinRuntime): Promise<RecordedOrigin[]> {
  const tape = runtime.agent.tape;
  const workspace = runtime.framework.workspace;
  const prefix = `${sessionTapeName("-", workspace).split("__")[0]}__`;
  const found: RecordedOrigin[] = [];
  // A session's first turn journals before its tape exists: ask the journals where they are.
  const journal = forkJournalOf(tape.store);
  if (journal === null) return [];
  const names = await (journal.journalTapes?.() ?? tape.store.listTapes());
  for (const name of names) {
    if (!name.startsWith(prefix) || name.split("__").length !== 2) continue;
    const turns = await listInterruptedTurns(tape.store, name);
    const origin = turns.map(interruptedOrigin).findLast((item) => item !== null) ?? null;
    if (origin === null || sessionTapeName(origin.session_id, workspace) !== name) continue;
    found.push(origin);
  }
  return found;
}

/**
 * Resumes the interrupted turns of the workspace's sessions whose origin `accept`s (see the
 * module doc), one session after the other; returns how many were dispatched. Failures are
 * logged, never thrown (a broken session must not stop a gateway from starting).
 *
 * @example
 * ```ts ignore
 * await resumeInterruptedSessions(runtime, { accept: (origin) => origin.channel === "telegram" });
 * ```
 */
export async function resumeInterruptedSessions(
  runtime: BuiltinRuntime,
  options: ResumeAtStartOptions,
): Promise<number> {
  let origins: RecordedOrigin[];
  try {
    origins = await interruptedSessions(runtime);
  } catch (error) {
    logger.error("recovery.scan_failed error={error}", { error });
    return 0;
  }
  let count = 0;
  for (const origin of origins) {
    if (options.signal?.aborted) break;
    if (!options.accept(origin)) continue;
    const inbound = new ChannelMessage({
      sessionId: origin.session_id,
      channel: origin.channel ?? "default",
      chatId: origin.chat_id ?? "default",
      content: "(resume the interrupted turn)",
      context: origin.sender === null ? {} : { sender_id: origin.sender },
      ...(origin.output_channel ? { outputChannel: origin.output_channel } : {}),
    });
    recoveries.add(inbound);
    logger.info("recovery.resume session={session} channel={channel} chat={chat}", {
      session: origin.session_id,
      channel: origin.channel ?? "-",
      chat: origin.chat_id ?? "-",
    });
    try {
      await runtime.framework.processInbound(inbound, { stream: options.stream === true });
      count++;
    } catch (error) {
      logger.error("recovery.failed session={session} error={error}", {
        session: origin.session_id,
        error,
      });
    }
  }
  return count;
}
