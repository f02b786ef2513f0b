/**
 * The Chat SDK instance of one chat channel: the SDK and its memory state are imported when the
 * channel starts, with Bub's choices — the SDK's log lines in Bub's log, and messages of one
 * thread handled concurrently (Bub's channel manager debounces and queues per session itself).
 *
 * @module
 */
import type { Adapter, Chat, Logger, StateAdapter } from "chat";

/** Imports the SDK and creates its `Chat` over `adapter` (keyed `name`); returns both. */
export async function createSdkChat(
  name: string,
  adapter: Adapter,
  userName: string,
  logger: Logger,
  streamPlaceholder?: string,
): Promise<{ sdk: typeof import("chat"); chat: Chat }> {
  const [sdk, { createMemoryState }] = await Promise.all([
    import("chat"),
    import("@chat-adapter/state-memory"),
  ]);
  const chat = new sdk.Chat({
    userName,
    adapters: { [name]: adapter },
    // The memory state's own copy of `chat` types differs only nominally (same shape).
    state: createMemoryState() as unknown as StateAdapter,
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
