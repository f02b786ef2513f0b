/**
 * `bub gateway` as one instance of a cluster over a PostgreSQL tape store: channels enqueue
 * inbound messages into the shared inbox (deduplicated by the channel's message id); a worker
 * claims sessions (leases owned by this instance), runs their messages through the channel
 * manager one turn at a time with the session tapes fenced by the lease, and completes each turn
 * with its last tape entry. Long-polling channels (Telegram) poll on the elected instance only.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import process from "node:process";
import { getLogger } from "../../_internal/log.ts";
import type { Channel, MessageHandler } from "../../kernel/channel.ts";
import type { Envelope } from "../../kernel/envelope.ts";
import { BubError } from "../../kernel/errors.ts";
import { PostgresInbox } from "../../tape/postgres_inbox.ts";
import { PostgresTapeStore } from "../../tape/postgres_store.ts";
import { type ChannelFramework, ChannelManager, type ChannelManagerOptions } from "../manager.ts";
import { decodeEnvelope, dedupeKeyOf, encodeEnvelope } from "./_envelope_codec.ts";
import { FencedTapeStore } from "./_fenced_store.ts";
import { electedChannel } from "./_poller_election.ts";
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
  /** Channels polled by one elected instance: channel name → job (`telegram-poller:<bot id>`). */
  readonly electedPollers?: Readonly<Record<string, string>>;
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
  #workspace: string;
  #worker: ClusterWorker | null = null;
  #working: Promise<void> | null = null;
  #stop: AbortController | null = null;

  /**
   * Creates the instance; registers a plugin providing the fenced store to the framework.
   *
   * @throws {BubError} (`config`) for a bad lease or poll interval
   */
  constructor(framework: ClusterFramework, options: ClusterGatewayOptions) {
    this.#leaseMs = positive("cluster_lease_seconds", options.leaseSeconds ?? 15) * 1000;
    this.#pollMs = positive("cluster_poll_seconds", options.pollSeconds ?? 0.5) * 1000;
    this.#workspace = options.workspace;
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.store = new PostgresTapeStore(options.url);
    this.inbox = new PostgresInbox(this.store);
    this.#fenced = new FencedTapeStore(this.store);
    this.#framework = framework;
    const fenced = this.#fenced;
    framework.register({ name: "bub-cluster", provideTapeStore: () => fenced }, "bub-cluster");
    const elected = options.electedPollers ?? {};
    const store = this.store;
    const retryMs = this.#pollMs;
    const enqueue: MessageHandler = (message) => this.#enqueue(message);
    const view: ChannelFramework = {
      getChannels: (_handler: MessageHandler) => {
        const channels = framework.getChannels(enqueue);
        for (const [name, channel] of channels) {
          const job = elected[name];
          if (job) channels.set(name, electedChannel(channel, { store, job, retryMs }));
        }
        return channels;
      },
      bindChannelRouter: (router) => framework.bindChannelRouter(router),
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

  async #enqueue(message: Envelope): Promise<void> {
    try {
      const session = await this.#framework.resolveSession(message);
      const body = encodeEnvelope(message, session);
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

  #decode(body: Record<string, unknown>): Envelope {
    const channel = this.manager.channels.get(String(body.channel)) as
      | (Channel & { typingLifespan?(chatId: string): AsyncDisposable })
      | undefined;
    const lifespan = body.kind !== "command" && typeof body.chatId === "string"
      ? channel?.typingLifespan?.(body.chatId) ?? null
      : null;
    return decodeEnvelope(body, lifespan);
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
      host: {
        admit: (message) => manager.admit(message),
        schedule: (message) => manager.schedule(message),
        quit: (session) => manager.quit(session),
        decode: (body) => this.#decode(body),
      },
    });
    // Its abort listener is registered before any turn: it stops completing messages before
    // the manager cancels the turns.
    this.#working = this.#worker.run(this.#stop.signal);
  }

  /**
   * Serves until `signal` aborts (or a channel stops the manager): the manager's loop and, once
   * the framework's running scope is open, the worker; then releases this instance's leases and
   * closes the store.
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
      await this.#working?.catch((error) =>
        logger.error("cluster.worker failed: {error}", { error })
      );
      await this.store.close();
    }
  }
}
