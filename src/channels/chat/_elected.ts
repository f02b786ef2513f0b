/**
 * One outward connection per bot across a cluster: a platform that receives its messages over a
 * connection it opens (Discord's gateway) would, on every instance, receive every message — each
 * instance would then refuse a stranger, open the thread and show typing. With the gateway in
 * cluster mode (a PostgreSQL tape store) only the instance leading `<platform>-gateway:<bot>`
 * (a {@link PostgresLeader}, as Telegram's poller) connects; the others keep serving webhooks and
 * answering the inbox's messages, and take over when the leader goes away.
 *
 * @module
 */
import { getLogger } from "../../_internal/log.ts";

/**
 * Opens a platform's connection: at once, or, in a cluster (`url` set), while this instance
 * leads the job ({@link electedConnection}).
 */
export async function connectPlatform(
  connect: () => Promise<AsyncDisposable>,
  options: Omit<ElectedConnectionOptions, "url"> & { readonly url: string | null },
): Promise<AsyncDisposable> {
  const url = options.url;
  return url ? await electedConnection(connect, { ...options, url }) : await connect();
}

/** Options of {@link electedConnection}. */
export interface ElectedConnectionOptions {
  /** The `postgres://` URL of the cluster's tape store. */
  readonly url: string;
  /** The job led (`discord-gateway:<application id>`). */
  readonly job: string;
  /** The channel, for log lines. */
  readonly channel: string;
  /** How often a follower tries to lead and a leader checks it still leads (ms). */
  readonly retryMs?: number;
}

/**
 * Connects with `connect` while this instance leads the job. The first attempt is awaited (a
 * leader's failing connection fails the channel's start); disposing stops trying, disconnects
 * and resigns.
 */
export async function electedConnection(
  connect: () => Promise<AsyncDisposable>,
  options: ElectedConnectionOptions,
): Promise<AsyncDisposable> {
  const [{ PostgresTapeStore }, { PostgresLeader }] = await Promise.all([
    import("../../tape/postgres_store.ts"),
    import("../../tape/postgres_leader.ts"),
  ]);
  const logger = getLogger(["bub", "channels", options.channel]);
  const retryMs = options.retryMs ?? 1000;
  const store = new PostgresTapeStore(options.url, { retrySeconds: 0 });
  const leader = new PostgresLeader(store, options.job);
  let connection: AsyncDisposable | null = null;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let round: Promise<void> | null = null;

  const disconnect = async (): Promise<void> => {
    const open = connection;
    connection = null;
    await Promise.resolve(open?.[Symbol.asyncDispose]()).catch(() => {});
  };
  const lead = async (): Promise<void> => {
    if (connection === null && await leader.tryLead() && !stopped) {
      connection = await connect();
      logger.info("{channel}.gateway leading {job}", {
        channel: options.channel,
        job: options.job,
      });
    }
  };
  const tick = async (): Promise<void> => {
    try {
      if (leader.leading && !await leader.stillLeading()) {
        logger.warning("{channel}.gateway lost the lead of {job}", {
          channel: options.channel,
          job: options.job,
        });
        await disconnect();
      }
      if (!stopped) await lead();
    } catch (error) {
      logger.warning("{channel}.gateway election failed for {job}: {error}", {
        channel: options.channel,
        job: options.job,
        error: (error as Error).message,
      });
      // A connection that failed to open leaves the lead to another instance.
      if (connection === null && leader.leading) await leader.resign().catch(() => {});
    }
    if (!stopped) timer = setTimeout(() => round = tick().finally(() => round = null), retryMs);
  };

  try {
    await lead();
  } catch (error) {
    await leader.resign().catch(() => {});
    await store.close().catch(() => {});
    throw error;
  }
  if (connection === null) {
    logger.info("{channel}.gateway following {job}", {
      channel: options.channel,
      job: options.job,
    });
  }
  timer = setTimeout(() => round = tick().finally(() => round = null), retryMs);
  return {
    async [Symbol.asyncDispose]() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      await round;
      await disconnect();
      await leader.resign().catch(() => {});
      await store.close().catch(() => {});
    },
  };
}
