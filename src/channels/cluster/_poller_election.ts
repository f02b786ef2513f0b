/**
 * One poller per bot token across a cluster: a channel whose `start` begins long polling (the
 * Telegram channel) is started only while this instance leads `<job>` (a {@link PostgresLeader});
 * the other instances keep trying and take over when the leader's connection closes. Sending
 * works on every instance.
 *
 * @module
 */
import { getLogger } from "../../_internal/log.ts";
import type { Channel } from "../../kernel/channel.ts";
import { PostgresLeader } from "../../tape/postgres_leader.ts";
import type { PostgresTapeStore } from "../../tape/postgres_store.ts";

const logger = getLogger(["bub", "channels", "cluster"]);

/** Options of {@link electedChannel}. */
export interface ElectionOptions {
  /** The store whose database elects. */
  readonly store: PostgresTapeStore;
  /** The job led (e.g. `telegram-poller:<bot id>`). */
  readonly job: string;
  /** How often a follower tries to lead, and a leader checks it still leads (ms). */
  readonly retryMs: number;
}

/**
 * `channel` with `start`/`stop` replaced: `start` leads (or keeps trying in the background) and
 * starts the real channel while leading; `stop` stops trying, stops the channel and resigns.
 * Every other member is the channel's own (bound to it).
 */
export function electedChannel(channel: Channel, options: ElectionOptions): Channel {
  const leader = new PostgresLeader(options.store, options.job);
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  let started = false;
  let stopController: AbortController | null = null;

  const startChannel = async (): Promise<void> => {
    // A new poller must not drop the updates its predecessor had not fetched yet.
    const dropping = channel as { dropPendingUpdates?: boolean };
    if ("dropPendingUpdates" in dropping) dropping.dropPendingUpdates = false;
    await channel.start(stopController!);
    started = true;
    logger.info("cluster.poller leading {job}", { job: options.job });
  };

  /** The election round in flight: `stop` waits for it, so it cannot start polling again. */
  let ticking: Promise<void> | null = null;
  const tick = (): void => {
    timer = null;
    ticking = round().finally(() => ticking = null);
  };

  const round = async (): Promise<void> => {
    if (stopped) return;
    try {
      if (leader.leading) {
        const leading = await leader.stillLeading();
        if (stopped) return;
        if (!leading) {
          if (started) {
            logger.warn("cluster.poller lost the lead of {job}", { job: options.job });
            started = false;
            await channel.stop();
          }
        } else if (!started || (channel as { polling?: boolean }).polling === false) {
          // Polling ended on its own (e.g. a failed request at start): the leader polls again.
          logger.warn("cluster.poller restarting {job}", { job: options.job });
          await startChannel();
        }
      } else if (await leader.tryLead() && !stopped) {
        await startChannel();
      }
    } catch (error) {
      logger.warn("cluster.poller election failed for {job}: {error}", { job: options.job, error });
    }
    if (!stopped) timer = setTimeout(tick, options.retryMs);
  };

  const start = async (stop: AbortController): Promise<void> => {
    stopped = false;
    stopController = stop;
    // The first attempt is awaited so a misconfigured channel fails `bub gateway` at once.
    if (await leader.tryLead()) await startChannel();
    else logger.info("cluster.poller following {job}", { job: options.job });
    timer = setTimeout(tick, options.retryMs);
  };

  const stop = async (): Promise<void> => {
    stopped = true;
    if (timer !== null) clearTimeout(timer);
    timer = null;
    // A round still waiting on PostgreSQL could otherwise start polling after this stop.
    await ticking;
    try {
      await channel.stop();
    } finally {
      started = false;
      await leader.resign();
    }
  };

  return new Proxy(channel, {
    get(target, key) {
      if (key === "start") return start;
      if (key === "stop") return stop;
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
