/**
 * `bub gateway` as one instance of a cluster over a PostgreSQL tape store: channels enqueue
 * inbound messages into the shared inbox (deduplicated by the channel's message id); a worker
 * claims sessions (leases owned by this instance), runs their messages through the channel
 * manager one turn at a time with the session tapes fenced by the lease, and completes each turn
 * with its last tape entry. Long-polling channels (Telegram) poll on the elected instance only.
 * Interfaces (the CLI, the web console) stay local to the instance their user is connected to.
 *
 * Every instance must run with the same workspace path: session tape names are derived from it.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import process from "node:process";
import { getLogger } from "../../_internal/log.ts";
import type { Channel, ChannelRouter, MessageHandler } from "../../kernel/channel.ts";
import type { Envelope } from "../../kernel/envelope.ts";
import { BubError } from "../../kernel/errors.ts";
import { inboundOf } from "../../kernel/inbound.ts";
import { PostgresInbox } from "../../tape/postgres_inbox.ts";
import { pgStoreInternals, PostgresTapeStore } from "../../tape/postgres_store.ts";
import { Interface } from "../channel.ts";
import { type ChannelFramework, ChannelManager, type ChannelManagerOptions } from "../manager.ts";
import {
  decodeEnvelope,
  dedupeKeyOf,
  encodeEnvelope,
  type MediaChannel,
} from "./_envelope_codec.ts";
import { FencedTapeStore } from "./_fenced_store.ts";
import { electedChannel } from "./_poller_election.ts";
import { setInboxRoute } from "./inbox_route.ts";
import { ClusterWorker } from "./_worker.ts";

const logger = getLogger(["bub", "channels", "cluster"]);

/** What the cluster needs of the framework. */
export type ClusterFramework = ChannelFramework & {
  register(plugin: object, name?: string): unknown;
};

/** Options of {@link ClusterGateway}. */
export interface ClusterGatewayOptions extends ChannelManagerOptions {
  /** The `postgres://` URL of the tape store. */
  readonly url: string;
  /** The workspace naming session tapes (the framework's). */
  readonly workspace: string;
  /** Lease time to live in seconds. Default 15. */
  readonly leaseSeconds?: number;
  /** Inbox polling interval in seconds (NOTIFY wakes sooner). Default 0.5. */
  readonly pollSeconds?: number;
  /**
   * How long an idle session stays held for its next message before its lease is released
   * (capped at a third of the lease); 0 (default) releases at once, which spreads sessions over
   * the instances at every turn.
   */
  readonly holdIdleSeconds?: number;
  /** Channels polled by one elected instance: channel name → job (`telegram-poller:<bot id>`). */
  readonly electedPollers?: Readonly<Record<string, string>>;
  /** The schema of the store's tables. Default `"public"`. */
  readonly schema?: string;
  /**
   * How long the store retries while PostgreSQL is unreachable (`tape_store_retry_seconds`), in
   * seconds. Default 300. Inbox messages stay pending meanwhile and run once it is back.
   */
  readonly storeRetrySeconds?: number;
  /** This instance's id. Default `<host>:<pid>:<random>`. */
  readonly owner?: string;
}

function positive(name: string, value: number): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new BubError("config", `${name} must be a number of seconds > 0, got ${String(value)}`, {
      key: name,
      value,
    });
  }
  return value;
}

/** One gateway instance of a cluster. */
export class ClusterGateway {
  /** This instance's id (the owner of its leases). */
  readonly owner: string;
  /** The channel manager (its channels hand messages to the inbox). */
  readonly manager: ChannelManager;
  /** The shared store. */
  readonly store: PostgresTapeStore;
  /** The shared inbox. */
  readonly inbox: PostgresInbox;
  #framework: ClusterFramework;
  #fenced: FencedTapeStore;
  #leaseMs: number;
  #pollMs: number;
  #holdIdleMs: number;
  #workspace: string;
  #worker: ClusterWorker | null = null;
  #working: Promise<void> | null = null;
  #failure: unknown = undefined;
  #stop: AbortController | null = null;
  #enqueues = new Map<string, Promise<void>>();

  /**
   * Creates the instance; registers a plugin providing the fenced store to the framework.
   *
   * @throws {BubError} (`config`) for a bad lease or poll interval
   */
  constructor(framework: ClusterFramework, options: ClusterGatewayOptions) {
    this.#leaseMs = positive("cluster_lease_seconds", options.leaseSeconds ?? 15) * 1000;
    this.#pollMs = positive("cluster_poll_seconds", options.pollSeconds ?? 0.5) * 1000;
    const hold = options.holdIdleSeconds ?? 0;
    this.#holdIdleMs = hold === 0 ? 0 : positive("cluster_hold_idle_seconds", hold) * 1000;
    this.#workspace = options.workspace;
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.store = new PostgresTapeStore(options.url, {
      ...(options.schema === undefined ? {} : { schema: options.schema }),
      retrySeconds: options.storeRetrySeconds ?? 300,
    });
    this.inbox = new PostgresInbox(this.store);
    this.#fenced = new FencedTapeStore(this.store);
    this.#framework = framework;
    const fenced = this.#fenced;
    framework.register({ name: "bub-cluster", provideTapeStore: () => fenced }, "bub-cluster");
    const elected = options.electedPollers ?? {};
    const store = this.store;
    const retryMs = this.#pollMs;
    const local = new Set<string>();
    // Bub's own inbounds (an approval's resume of another chat's turn) go to the inbox too,
    // except an interface's, which runs here.
    setInboxRoute(framework, async (message) => {
      if (local.has(inboundOf(message).channel ?? "")) return false;
      await this.#enqueue(message);
      return true;
    });
    const view: ChannelFramework = {
      getChannels: (handler: MessageHandler) => {
        // Interfaces (the terminal, the web console) answer a connection of this process: their
        // messages run here, as in a single gateway; every other channel's go to the inbox.
        const route: MessageHandler = (message) =>
          local.has(inboundOf(message).channel ?? "") ? handler(message) : this.#enqueue(message);
        const channels = framework.getChannels(route);
        for (const [name, channel] of channels) if (channel instanceof Interface) local.add(name);
        for (const [name, channel] of channels) {
          const job = elected[name];
          if (job) channels.set(name, electedChannel(channel, { store, job, retryMs }));
        }
        return channels;
      },
      bindChannelRouter: (router) =>
        framework.bindChannelRouter(router ? this.#guarded(router) : null),
      running: async () => {
        const scope = await framework.running();
        this.#startWorker();
        return scope;
      },
      resolveSession: (message) => framework.resolveSession(message),
      admitMessage: (args) => framework.admitMessage(args),
      steerMessage: (args) => framework.steerMessage(args),
      processInbound: (message, options) => framework.processInbound(message, options),
      getSteeringInbox: () => framework.getSteeringInbox(),
      get hookRuntime() {
        return framework.hookRuntime;
      },
    } as ChannelFramework;
    this.manager = new ChannelManager(view, options);
  }

  /**
   * Enqueues in call order per chat: a channel hands messages over without waiting (Telegram
   * does for each update of a batch), and concurrent inserts could commit out of order.
   */
  #enqueue(message: Envelope): Promise<void> {
    const key = inboundOf(message).sessionId ?? "";
    const before = this.#enqueues.get(key) ?? Promise.resolve();
    const done = before.then(() => this.#enqueueNow(message));
    const settled = done.catch(() => {});
    this.#enqueues.set(key, settled);
    void settled.then(() => {
      if (this.#enqueues.get(key) === settled) this.#enqueues.delete(key);
    });
    return done;
  }

  async #enqueueNow(message: Envelope): Promise<void> {
    try {
      const session = await this.#framework.resolveSession(message);
      const channel = this.manager.channels.get(inboundOf(message).channel ?? "");
      const body = encodeEnvelope(message, session, (channel as MediaChannel | undefined) ?? null);
      const key = dedupeKeyOf(body);
      const result = await this.inbox.enqueue(session, body, key ? { dedupeKey: key } : {});
      if (result.duplicate) {
        logger.info("cluster.duplicate session={session} key={key}", { session, key });
      }
    } catch (error) {
      logger.error("cluster.enqueue failed: {error}", { error });
      throw error;
    }
  }

  /**
   * The router with outbound messages of sessions whose lease was lost dropped: the new owner
   * runs those turns again, so the old owner's answers or errors would reach the chat twice.
   */
  #guarded(router: ChannelRouter): ChannelRouter {
    const fenced = this.#fenced;
    return new Proxy(router, {
      get(target, key) {
        if (key === "dispatchOutput") {
          return async (message: Envelope): Promise<boolean> => {
            const session = inboundOf(message).sessionId;
            if (session !== null && fenced.isLost(session)) {
              logger.warn("cluster.outbound dropped session={session}: the lease was lost", {
                session,
              });
              return false;
            }
            return await target.dispatchOutput(message);
          };
        }
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }

  #decode(body: Record<string, unknown>): Envelope {
    const channel = this.manager.channels.get(String(body.channel)) as
      | (Channel & { typingLifespan?(chatId: string): AsyncDisposable })
      | undefined;
    const lifespan = body.kind !== "command" && typeof body.chatId === "string"
      ? channel?.typingLifespan?.(body.chatId) ?? null
      : null;
    return decodeEnvelope(body, lifespan, (channel as MediaChannel | undefined) ?? null);
  }

  #startWorker(): void {
    if (this.#worker || !this.#stop) return;
    const manager = this.manager;
    this.#worker = new ClusterWorker({
      store: this.#fenced,
      inbox: this.inbox,
      owner: this.owner,
      workspace: this.#workspace,
      leaseMs: this.#leaseMs,
      pollMs: this.#pollMs,
      holdIdleMs: this.#holdIdleMs,
      host: {
        admit: (message) => manager.admit(message),
        schedule: (message) => manager.schedule(message),
        quit: (session) => manager.quit(session),
        idle: (session) => {
          const snapshot = manager.sessionSnapshot(session);
          return snapshot === null || (!snapshot.isRunning && snapshot.pendingCount === 0);
        },
        decode: (body) => this.#decode(body),
      },
    });
    // Its abort listener is registered before any turn: it stops completing messages before
    // the manager cancels the turns.
    const stop = this.#stop;
    this.#working = this.#worker.run(stop.signal).catch((error: unknown) => {
      // Without its worker the instance would only fill the inbox: stop serving.
      this.#failure = error;
      stop.abort(error);
    });
  }

  /**
   * Serves until `signal` aborts (or a channel stops the manager): the manager's loop and, once
   * the framework's running scope is open, the worker; then releases this instance's leases and
   * closes the store.
   *
   * @throws {BubError} when the worker fails (e.g. PostgreSQL cannot be reached)
   */
  async run(signal: AbortSignal): Promise<void> {
    const stop = new AbortController();
    const onAbort = () => stop.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) stop.abort(signal.reason);
    this.#stop = stop;
    try {
      await this.manager.listenAndRun({ signal: stop.signal });
    } finally {
      signal.removeEventListener("abort", onAbort);
      stop.abort();
      // A turn still waiting for an unreachable store gives up: its messages stay pending in the
      // inbox and run again on the next owner.
      pgStoreInternals(this.store).stopRetrying();
      await this.#working;
      await this.store.close();
    }
    if (this.#failure !== undefined) {
      if (BubError.isInstance(this.#failure)) throw this.#failure;
      throw new BubError(
        "temporary",
        `The cluster worker of ${this.owner} failed: ${String(this.#failure)}`,
        { owner: this.owner },
        { cause: this.#failure },
      );
    }
  }
}
