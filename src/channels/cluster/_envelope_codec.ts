/**
 * Inbound envelopes as inbox rows: what a channel hands the manager is stored as JSON (its typed
 * fields, media by URL only) and rebuilt as a `ChannelMessage` on the instance that runs it.
 *
 * @module
 */
import { isRecord } from "../../_internal/object.ts";
import { ChannelMessage, MediaItem, type MediaType } from "../../kernel/channel_message.ts";
import type { Envelope } from "../../kernel/envelope.ts";
import { BubError } from "../../kernel/errors.ts";
import { inboundOf } from "../../kernel/inbound.ts";

/** The JSON body of an inbox row. */
export interface InboxBody extends Record<string, unknown> {
  readonly sessionId: string;
  readonly channel: string;
  readonly chatId: string;
  readonly content: string;
  readonly kind: string;
  readonly isActive: boolean;
  readonly outputChannel: string | null;
  readonly context: Record<string, unknown>;
  readonly media: readonly {
    type: string;
    mimeType: string;
    filename: string | null;
    url: string;
  }[];
}

function jsonSafe(value: Record<string, unknown>): Record<string, unknown> {
  try {
    return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/**
 * The inbox body of `message` whose session resolved to `sessionId`. Media without a URL (bytes
 * fetched on demand from the receiving instance) cannot travel and are left out.
 */
export function encodeEnvelope(message: Envelope, sessionId: string): InboxBody {
  const inbound = inboundOf(message);
  if (inbound.channel === null) {
    throw new BubError("invalid_input", "Cannot enqueue an inbound message without a channel", {
      sessionId,
    });
  }
  const media = inbound.media.flatMap((item) => {
    const { type, mimeType, filename, url } = (item ?? {}) as Record<string, unknown>;
    return typeof url === "string" && url !== ""
      ? [{
        type: String(type),
        mimeType: String(mimeType),
        filename: typeof filename === "string" ? filename : null,
        url,
      }]
      : [];
  });
  return {
    sessionId,
    channel: inbound.channel,
    chatId: inbound.chatId ?? "default",
    content: inbound.content,
    kind: inbound.kind,
    isActive: inbound.isActive,
    outputChannel: inbound.outputChannel,
    context: jsonSafe({ ...inbound.context }),
    media,
  };
}

/**
 * The channel's own id of `message` for deduplication (`<channel>:<chat>:<message_id>` from the
 * context or a JSON content's `message_id`), or undefined when it has none.
 */
export function dedupeKeyOf(body: InboxBody): string | undefined {
  let id: unknown = body.context.message_id;
  if (id === undefined) {
    try {
      const parsed: unknown = JSON.parse(body.content);
      if (isRecord(parsed)) id = parsed.message_id;
    } catch { /* plain text: no id */ }
  }
  return typeof id === "number" || (typeof id === "string" && id !== "")
    ? `${body.channel}:${body.chatId}:${id}`
    : undefined;
}

/** Rebuilds the message of an inbox body; `lifespan` (e.g. a typing indicator) is attached. */
export function decodeEnvelope(
  body: Record<string, unknown>,
  lifespan: AsyncDisposable | null = null,
): ChannelMessage {
  if (typeof body.sessionId !== "string" || typeof body.channel !== "string") {
    throw new BubError("invalid_input", "Cannot decode an inbox row: no sessionId or channel", {
      body,
    });
  }
  const media = Array.isArray(body.media)
    ? body.media.filter(isRecord).map((item) =>
      new MediaItem({
        type: String(item.type) as MediaType,
        mimeType: String(item.mimeType),
        filename: typeof item.filename === "string" ? item.filename : null,
        url: String(item.url),
      })
    )
    : [];
  return new ChannelMessage({
    sessionId: body.sessionId,
    channel: body.channel,
    chatId: typeof body.chatId === "string" ? body.chatId : "default",
    content: typeof body.content === "string" ? body.content : "",
    kind: (typeof body.kind === "string" ? body.kind : "normal") as ChannelMessage["kind"],
    isActive: body.isActive === true,
    context: isRecord(body.context) ? { ...body.context } : {},
    media,
    lifespan,
    ...(typeof body.outputChannel === "string" ? { outputChannel: body.outputChannel } : {}),
  });
}
