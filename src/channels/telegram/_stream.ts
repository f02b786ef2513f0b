/**
 * How the Telegram channel consumes a streamed turn (`streamEvents`, with `stream_output`): the
 * chat shows "typing" from the first event to the end of the stream (a turn whose message
 * lifespan already shows it is unaffected: nested use is a no-op), and each tool call is logged
 * from its `tool_start` / `tool_end` events. Every event is re-yielded unchanged.
 *
 * @module
 */
import { getLogger } from "../../_internal/log.ts";
import type { StreamEvent } from "../../kernel/stream_events.ts";
import type { TypingIndicators } from "./_typing.ts";

const logger = getLogger(["bub", "channels", "telegram"]);

/** Re-yields `stream`, showing "typing" in `chatId` while it runs (see the module doc). */
export async function* typingWhileStreaming(
  typing: TypingIndicators,
  chatId: string | null,
  stream: AsyncIterable<StreamEvent>,
): AsyncGenerator<StreamEvent, void, undefined> {
  if (chatId === null) {
    yield* stream;
    return;
  }
  await using lifespan = typing.lifespan(chatId);
  let entered = false;
  for await (const event of stream) {
    if (!entered) {
      entered = true;
      await lifespan.enter();
    }
    if (event.kind === "tool_start") {
      logger.debug("telegram.tool.start chat_id={chatId} name={name}", {
        chatId,
        name: event.data.name,
      });
    } else if (event.kind === "tool_end") {
      logger.debug("telegram.tool.end chat_id={chatId} name={name} ok={ok} duration_ms={ms}", {
        chatId,
        name: event.data.name,
        ok: event.data.ok,
        ms: Math.round(event.data.duration_ms),
      });
    }
    yield event;
  }
}
