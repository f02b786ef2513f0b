/**
 * The worker of a cluster instance: claims sessions with pending inbox messages (a lease owned by
 * this instance), runs each as a {@link SessionRun}, and wakes on LISTEN/NOTIFY with a polling
 * fallback (notifications are lost while a connection reconnects).
 *
 * @module
 */
import { getLogger } from "../../_internal/log.ts";
import type { PostgresInbox } from "../../tape/postgres_inbox.ts";
import type { FencedTapeStore } from "./_fenced_store.ts";
import { isoNow } from "../../_internal/utc_text.ts";
import { sessionTapeName } from "../../tape/naming.ts";
import { type SessionHost, SessionRun } from "./_session_run.ts";
import { TURN_STARTED } from "./_turn_events.ts";

const logger = getLogger(["bub", "channels", "cluster"]);

/** Most sessions one claim statement takes (a bound on its duration and on one instance's grab). */
const CLAIM_BATCH = 32;

/**
 * A claim takes at most half the waiting sessions (at least one), then claims again: instances
 * woken by the same notification split a burst instead of the quickest taking it all.
 */
const CLAIM_SHARE = 2;

/** Options of {@link ClusterWorker}. */
export interface ClusterWorkerOptions {
  /** The fenced store the turns append through. */
  readonly store: FencedTapeStore;
  /** The shared inbox. */
  readonly inbox: PostgresInbox;
  /** The manager side. */
  readonly host: SessionHost;
  /** This instance's unique id (the lease owner). */
  readonly owner: string;
  /** The workspace naming the session tapes. */
  readonly workspace: string;
  /** Lease time to live in ms (renewed every third of it). */
  readonly leaseMs: number;
  /** Polling interval in ms. */
  readonly pollMs: number;
  /** How long an idle session stays held for its next message (at most a third of the lease). */
  readonly holdIdleMs?: number;
  /** Most sessions run at once by this instance. Default 256. */
  readonly maxSessions?: number;
}

/** Claims and runs sessions until stopped. */
export class ClusterWorker {
  #options: ClusterWorkerOptions;
  #runs = new Map<string, { run: SessionRun; done: Promise<void> }>();
  #stopping = false;
  #kick: (() => void) | null = null;
  #kicked = false;
  /** The session tapes' common prefix (`<workspace hash>__`). */
  #tapePrefix: string;

  constructor(options: ClusterWorkerOptions) {
    this.#options = options;
    this.#tapePrefix = `${sessionTapeName("-", options.workspace).split("__")[0]}__`;
  }

  /** True once {@link run}'s signal aborted. */
  get stopping(): boolean {
    return this.#stopping;
  }

  /** The sessions this instance holds now. */
  get sessions(): string[] {
    return [...this.#runs.keys()];
  }

  #wakeUp(): void {
    this.#kicked = true;
    this.#kick?.();
  }

  /**
   * Runs until `signal` aborts; then turns end without completing their messages and the leases
   * are released (the next owner records the interruption and runs them again).
   */
  async run(signal: AbortSignal): Promise<void> {
    const onAbort = () => {
      this.#stopping = true;
      this.#wakeUp();
    };
    if (signal.aborted) return;
    signal.addEventListener("abort", onAbort, { once: true });
    const { inbox, pollMs } = this.#options;
    const listener = await inbox.listen((session) => {
      const held = this.#runs.get(session);
      if (held) held.run.wake();
      else this.#wakeUp();
    });
    try {
      while (!this.#stopping) {
        this.#kicked = false;
        await this.#claimAll();
        if (this.#stopping) break;
        if (!this.#kicked) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, pollMs);
            this.#kick = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          this.#kick = null;
          // The poll (notifications are lost while a connection reconnects): one query for the
          // held sessions, and only those with messages they have not taken are woken.
          if (!this.#kicked && !this.#stopping) await this.#pollHeld();
        }
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
      await listener.close().catch(() => {});
      for (const { run } of this.#runs.values()) run.wake();
      await Promise.all([...this.#runs.values()].map(({ done }) => done));
    }
  }

  async #pollHeld(): Promise<void> {
    let heads;
    try {
      heads = await this.#options.inbox.pendingHeads([...this.#runs.keys()]);
    } catch (error) {
      logger.warn("cluster.poll failed: {error}", { error });
      for (const { run } of this.#runs.values()) run.wake();
      return;
    }
    for (const [session, head] of heads) {
      const held = this.#runs.get(session);
      if (held?.run.behind(head)) held.run.wake();
    }
  }

  /** Claims sessions up to the free capacity, many per statement (one batch per round trip). */
  async #claimAll(): Promise<void> {
    const { inbox, owner, leaseMs } = this.#options;
    const max = this.#options.maxSessions ?? 256;
    while (!this.#stopping && this.#runs.size < max) {
      const limit = Math.min(CLAIM_BATCH, max - this.#runs.size);
      let claimed;
      try {
        // With each session, where its last turn started (a dead owner's interrupted turn).
        claimed = await inbox.claimMany(owner, leaseMs, limit, {
          share: CLAIM_SHARE,
          // ... and records the start of the turn of its oldest message.
          latestEvent: { tapePrefix: this.#tapePrefix, name: TURN_STARTED, record: isoNow() },
        });
      } catch (error) {
        logger.warn("cluster.claim failed: {error}", { error });
        return;
      }
      for (const claim of claimed) this.#start(new SessionRun(this.#context(), claim));
      if (claimed.length === 0) return; // nothing more to claim now
    }
  }

  #context() {
    const { store, inbox, host, workspace, leaseMs } = this.#options;
    const holdIdleMs = Math.min(this.#options.holdIdleMs ?? 0, leaseMs / 3);
    return { store, inbox, host, workspace, leaseMs, holdIdleMs, stopping: () => this.#stopping };
  }

  #start(run: SessionRun): void {
    // A run of this instance whose lease expired (a stalled event loop) may still be winding
    // down: the new one starts after it, so at most one run per session and process exists (the
    // old one's loss cancels only its own turns).
    const previous = this.#runs.get(run.session)?.done;
    const done = (previous ? previous.then(() => run.run()) : run.run()).finally(() => {
      if (this.#runs.get(run.session)?.run === run) this.#runs.delete(run.session);
      // Released while a message arrived: claim it again at once.
      this.#wakeUp();
    });
    this.#runs.set(run.session, { run, done });
  }
}
