/**
 * One leased session on one instance: records an interrupted turn of a dead owner, runs the
 * session's inbox messages one turn at a time in arrival order (later messages meet the manager's
 * admission rules while a turn runs), completes each turn's messages together with its last tape
 * entry, renews the lease while working and releases it when idle (with the last completion,
 * when no other message is pending).
 *
 * @module
 */
import { getLogger } from "../../_internal/log.ts";
import type { Envelope } from "../../kernel/envelope.ts";
import { BubError } from "../../kernel/errors.ts";
import { eventEntry } from "../../tape/entry.ts";
import { sessionTapeName } from "../../tape/naming.ts";
import type { InboxClaim, InboxMessage, PostgresInbox } from "../../tape/postgres_inbox.ts";
import type { TapeLease } from "../../tape/postgres_store.ts";
import type { FencedTapeStore } from "./_fenced_store.ts";
import { markRedelivered } from "./redelivery.ts";
import {
  type Interruption,
  MESSAGE_REJECTED,
  recordInterruption,
  TURN_COMPLETED,
  TURN_STARTED,
} from "./_turn_events.ts";

const logger = getLogger(["bub", "channels", "cluster"]);

/** What a session run needs of the channel manager. */
export interface SessionHost {
  /** The manager's admission; true: run it now. */
  admit(message: Envelope): Promise<boolean>;
  /** Runs an admitted message; resolves when its turn has ended. */
  schedule(message: Envelope): Promise<void>;
  /** True when the manager holds nothing for the session (no turn running or pending). */
  idle(sessionId: string): boolean;
  /** Cancels the session's turns. */
  quit(sessionId: string): Promise<void>;
  /** The message of an inbox body. */
  decode(body: Record<string, unknown>): Envelope;
}

/** What a session run shares with its worker. */
export interface SessionContext {
  readonly store: FencedTapeStore;
  readonly inbox: PostgresInbox;
  readonly host: SessionHost;
  readonly workspace: string;
  readonly leaseMs: number;
  /**
   * How long an idle session stays held for its next message before its lease is released (a
   * chat's next message then runs without a new claim). 0 releases at once.
   */
  readonly holdIdleMs: number;
  /** True once the instance stops: turns then end without completing their messages. */
  stopping(): boolean;
}

interface Item {
  readonly message: InboxMessage;
  /** The decoded message when admission already said "run". */
  envelope: Envelope | null;
}

function isLeaseLost(error: unknown): boolean {
  return BubError.isInstance(error) && error.details?.reason === "lease_lost";
}

/** A session leased by this instance. */
export class SessionRun {
  readonly session: string;
  #ctx: SessionContext;
  #lease: TapeLease;
  #interrupted: Interruption | null = null;
  #queue: Item[];
  #seen: Set<number>;
  #newest = 0;
  #lost = false;
  #finished = false;
  /** True while a completion may give the lease up, and once it did. */
  #releasing = false;
  #released = false;
  #wake: (() => void) | null = null;
  #woken = false;

  /** Where the session's last turn started, read with the claim (undefined: read the tape). */
  #started: Record<string, unknown> | null | undefined;

  /** The message whose turn start the claim recorded. */
  #recorded: number | null;

  constructor(ctx: SessionContext, { lease, messages, latestEvent, recorded }: InboxClaim) {
    this.#ctx = ctx;
    this.#started = latestEvent;
    this.#recorded = recorded ?? null;
    this.#lease = lease;
    this.session = lease.key;
    this.#queue = messages.map((message) => ({ message, envelope: null }));
    this.#seen = new Set(messages.map((message) => message.id));
    for (const message of messages) this.#newest = Math.max(this.#newest, message.id);
  }

  /** True when `head` (the newest pending message id) is one this run has not taken yet. */
  behind(head: number): boolean {
    return head > this.#newest;
  }

  /** New messages may be pending (a notification or the poll). */
  wake(): void {
    this.#woken = true;
    this.#wake?.();
  }

  /** Runs until the session is idle (lease released), lost, or the instance stops. */
  async run(): Promise<void> {
    const { store } = this.#ctx;
    const tape = sessionTapeName(this.session, this.#ctx.workspace);
    store.fence(this.session, this.#lease);
    const renewal = setInterval(() => void this.#renew(), Math.max(50, this.#ctx.leaseMs / 3));
    try {
      this.#interrupted = await recordInterruption(store, tape, this.#lease, {
        started: this.#started,
        pending: this.#queue.map((item) => item.message.id),
        session: this.session,
      });
      while (!this.#lost && !this.#ctx.stopping() && !this.#released) {
        if (this.#queue.length === 0) await this.#refill();
        const item = this.#queue.shift();
        if (!item) break;
        await this.#turn(tape, item);
      }
    } catch (error) {
      if (isLeaseLost(error)) {
        this.#lost = true;
        store.markLost(this.session, this.#lease);
      } else {
        logger.error("cluster.session failed session={session}: {error}", {
          session: this.session,
          error,
        });
      }
    } finally {
      this.#finished = true;
      clearInterval(renewal);
      if (this.#lost) {
        logger.warn("cluster.lease_lost session={session} epoch={epoch}", {
          session: this.session,
          epoch: this.#lease.epoch,
        });
      } else if (!this.#released) {
        await store.inner.releaseLease(this.#lease).catch(() => false);
      }
    }
  }

  async #renew(): Promise<void> {
    if (this.#lost) return;
    try {
      const renewed = await this.#ctx.store.inner.renewLease(this.#lease, this.#ctx.leaseMs);
      if (renewed) {
        this.#lease = renewed;
        return;
      }
      // A late answer, or the completion gave the lease up: the session may be someone's again.
      if (this.#finished || this.#releasing) return;
      this.#lost = true;
      this.#ctx.store.markLost(this.session, this.#lease);
      this.wake();
      await this.#ctx.host.quit(this.session);
    } catch (error) {
      logger.warn("cluster.renew failed session={session}: {error}", {
        session: this.session,
        error,
      });
    }
  }

  /** Fetches pending messages; when none, waits up to `holdIdleMs` for a wake-up with some. */
  async #refill(): Promise<void> {
    const deadline = Date.now() + this.#ctx.holdIdleMs;
    for (;;) {
      for (const message of await this.#fetch()) this.#queue.push({ message, envelope: null });
      const left = deadline - Date.now();
      if (this.#queue.length > 0 || left <= 0 || this.#lost || this.#ctx.stopping()) return;
      if (!this.#woken) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          this.#wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.#wake = null;
      }
      if (!this.#woken || this.#lost || this.#ctx.stopping()) return;
    }
  }

  /** Pending messages not taken yet, oldest first. */
  async #fetch(): Promise<InboxMessage[]> {
    this.#woken = false;
    const fresh = (await this.#ctx.inbox.pending(this.session))
      .filter((message) => !this.#seen.has(message.id));
    for (const message of fresh) {
      this.#seen.add(message.id);
      this.#newest = Math.max(this.#newest, message.id);
    }
    return fresh;
  }

  async #turn(tape: string, item: Item): Promise<void> {
    const { store, host, inbox } = this.#ctx;
    const id = item.message.id;
    if (id === this.#recorded) this.#recorded = null; // the claim recorded its start
    else {
      await store.appendMany(tape, [
        eventEntry(TURN_STARTED, {
          message_id: id,
          owner: this.#lease.owner,
          epoch: this.#lease.epoch,
        }),
      ]);
    }
    const consumed = [id];
    let envelope: Envelope;
    try {
      envelope = item.envelope ?? host.decode(item.message.body);
      // The message a dead owner's turn was running: that turn resumes instead of a new one
      // (or, when it had run to its end, its answer is delivered again).
      if (id === this.#interrupted?.messageId) markRedelivered(envelope, this.#interrupted.answer);
    } catch (error) {
      // A row no instance can run would be claimed again forever: it completes as rejected.
      logger.error("cluster.message_rejected session={session} id={id}: {error}", {
        session: this.session,
        id,
        error,
      });
      await inbox.complete(this.#lease, consumed, tape, [
        eventEntry(MESSAGE_REJECTED, { message_id: id, error: String(error) }),
      ]);
      return;
    }
    if (item.envelope !== null || await host.admit(envelope)) {
      let ended = false;
      const turn = host.schedule(envelope).finally(() => {
        ended = true;
        this.#wake?.();
      });
      // Until the manager is done with the session: steering leftovers and follow-ups run as
      // further turns there, and their messages complete with this one.
      while (!(ended && host.idle(this.session))) {
        if (!this.#woken) {
          await new Promise<void>((resolve) => {
            const timer = ended ? setTimeout(resolve, 20) : undefined;
            this.#wake = () => {
              clearTimeout(timer);
              resolve();
            };
            if (this.#woken) this.#wake();
          });
          this.#wake = null;
        }
        if (this.#lost || this.#ctx.stopping()) break;
        if (!this.#woken) continue;
        // Messages that arrive meanwhile meet the admission rules now (steering). A failed read
        // (PostgreSQL unreachable) must not end the run: its answer may be out already, and the
        // poll wakes the run again.
        const fresh = await this.#fetch().catch((error) => {
          logger.warn("cluster.fetch failed session={session}: {error}", {
            session: this.session,
            error,
          });
          return [];
        });
        for (const message of fresh) {
          let next: Envelope;
          try {
            next = host.decode(message.body);
          } catch {
            this.#queue.push({ message, envelope: null }); // rejected in its turn
            continue;
          }
          if (await host.admit(next)) this.#queue.push({ message, envelope: next });
          else consumed.push(message.id);
        }
      }
      await turn;
    }
    if (this.#lost || this.#ctx.stopping()) return;
    // Nothing else taken and nothing held for: the completion releases the lease when no other
    // message is pending (one transaction instead of a fetch and a release after it).
    const release = this.#queue.length === 0 && this.#ctx.holdIdleMs === 0;
    this.#releasing = release;
    const { released } = await inbox.complete(this.#lease, consumed, tape, [
      eventEntry(TURN_COMPLETED, { message_ids: consumed, owner: this.#lease.owner }),
    ], { release }).catch((error) => {
      this.#releasing = false;
      throw error;
    });
    this.#releasing = this.#released = released;
  }
}
