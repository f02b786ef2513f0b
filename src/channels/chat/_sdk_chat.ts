/**
 * The Chat SDK instance of one chat channel: the SDK and its memory state are imported when the
 * channel starts, with Bub's choices — the SDK's log lines in Bub's log, messages of one thread
 * handled concurrently (Bub's channel manager debounces and queues per session itself), and, on
 * a cluster instance, thread subscriptions shared through the cluster's PostgreSQL database.
 *
 * @module
 */
import type { Adapter, Chat, Logger, StateAdapter } from "chat";

/**
 * Imports the SDK and creates its `Chat` over `adapter` (keyed `name`); returns both. With
 * `clusterUrl` (the cluster's tape store) thread subscriptions are kept in its database; with
 * `streamPlaceholder` a streamed answer is first posted as that text and then edited.
 */
export async function createSdkChat(
  name: string,
  adapter: Adapter,
  userName: string,
  logger: Logger,
  options: { clusterUrl?: string | null; streamPlaceholder?: string } = {},
): Promise<{ sdk: typeof import("chat"); chat: Chat }> {
  const [sdk, { createMemoryState }] = await Promise.all([
    import("chat"),
    import("@chat-adapter/state-memory"),
  ]);
  // The memory state's own copy of `chat` types differs only nominally (same shape).
  const memory = createMemoryState() as unknown as StateAdapter;
  const { clusterUrl = null, streamPlaceholder } = options;
  const state = clusterUrl === null
    ? memory
    : new (await import("./_shared_state.ts")).SharedSubscriptionsState(memory, clusterUrl);
  const chat = new sdk.Chat({
    userName,
    adapters: { [name]: adapter },
    state,
    logger,
    // The SDK's default ("drop" a message while the thread's handler runs) would lose messages
    // during a hand-off to the channel manager.
    concurrency: "concurrent",
    ...(streamPlaceholder === undefined
      ? {}
      : { fallbackStreamingPlaceholderText: streamPlaceholder }),
  });
  return { sdk, chat };
}
