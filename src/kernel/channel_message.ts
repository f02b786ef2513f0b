/**
 * The channel-side envelope: {@link ChannelMessage} and its {@link MediaItem}s.
 *
 * @module
 */
import { encodeBase64 } from "../_internal/base64.ts";

/**
 * The kind of a message.
 *
 * @example
 * ```ts
 * import { ChannelMessage } from "@bub/core";
 * import type { MessageKind } from "@bub/core/kernel";
 * const kind: MessageKind = "command";
 * new ChannelMessage({ sessionId: "cli:local", channel: "cli", content: ",help", kind });
 * ```
 */
export type MessageKind = "error" | "normal" | "command";
/**
 * The type of a media item.
 *
 * @example
 * ```ts
 * import { MediaItem, type MediaType } from "@bub/core/kernel";
 * const type: MediaType = "image";
 * new MediaItem({ type, mimeType: "image/png", url: "https://example.com/cat.png" });
 * ```
 */
export type MediaType = "image" | "audio" | "video" | "document";

/**
 * Fields of {@link MediaItem}.
 *
 * @example
 * ```ts
 * import { MediaItem, type MediaItemInit } from "@bub/core/kernel";
 * const init: MediaItemInit = { type: "document", mimeType: "text/plain", filename: "notes.txt" };
 * new MediaItem(init);
 * ```
 */
export interface MediaItemInit {
  /** What it is. */
  type: MediaType;
  /** Its MIME type. */
  mimeType: string;
  /** A file name. */
  filename?: string | null;
  /** A URL to it. */
  url?: string | null;
  /** Loads its bytes lazily; null when unavailable. */
  dataFetcher?: (() => Promise<Uint8Array | null>) | null;
}

/**
 * A media attachment.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MediaItem } from "@bub/core/kernel";
 * const item = new MediaItem({
 *   type: "document",
 *   mimeType: "text/plain",
 *   dataFetcher: () => Promise.resolve(new TextEncoder().encode("hi")),
 * });
 * assert.equal(await item.getUrl(), "data:text/plain;base64,aGk=");
 * ```
 */
export class MediaItem {
  /** What it is. */
  type: MediaType;
  /** Its MIME type. */
  mimeType: string;
  /** A file name, or null. */
  filename: string | null;
  /** A URL, or null. */
  url: string | null;
  /** Loads its bytes lazily, or null. */
  dataFetcher: (() => Promise<Uint8Array | null>) | null;

  /**
   * Creates the object.
   *
   * @param init the fields
   */
  constructor(init: MediaItemInit) {
    this.type = init.type;
    this.mimeType = init.mimeType;
    this.filename = init.filename ?? null;
    this.url = init.url ?? null;
    this.dataFetcher = init.dataFetcher ?? null;
  }

  /** The URL, else a `data:` URL of the fetched bytes, else null. */
  async getUrl(): Promise<string | null> {
    if (this.url) return this.url;
    if (!this.dataFetcher) return null;
    const data = await this.dataFetcher();
    if (data === null || data === undefined) return null;
    return `data:${this.mimeType};base64,${encodeBase64(data)}`;
  }
}

/**
 * Fields of {@link ChannelMessage}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ChannelMessage } from "@bub/core";
 * import type { ChannelMessageInit } from "@bub/core/kernel";
 * const init: ChannelMessageInit = { sessionId: "tg:42", channel: "telegram", content: "hi", chatId: "42" };
 * assert.equal(new ChannelMessage(init).outputChannel, "telegram");
 * ```
 */
export interface ChannelMessageInit {
  /** The session id. */
  sessionId: string;
  /** The channel name. */
  channel: string;
  /** The text. */
  content: string;
  /** The chat id. Default `"default"`. */
  chatId?: string;
  /** Active conversation (used by debouncing). Default false. */
  isActive?: boolean;
  /** Default `"normal"`. */
  kind?: MessageKind;
  /** Metadata; `channel` and `chatId` keys are written into it. */
  context?: Record<string, unknown>;
  /** Attachments. */
  media?: MediaItem[];
  /** A per-message resource entered by `loadState` and exited by `saveState`. */
  lifespan?: AsyncDisposable | null;
  /** Where replies go. Default: `channel`. */
  outputChannel?: string;
}

/**
 * A message as channels produce and receive it. On construction the context gains
 * `channel: "$<channel>"` and `chat_id`, and an empty `outputChannel` becomes `channel`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ChannelMessage } from "@bub/core";
 * const message = new ChannelMessage({ sessionId: "cli:local", channel: "cli", content: "hi", chatId: "local" });
 * assert.ok(message.contextStr === "channel=$cli|chat_id=local");
 * ```
 */
export class ChannelMessage {
  /** The session id. */
  sessionId: string;
  /** The channel name. */
  channel: string;
  /** The text. */
  content: string;
  /** The chat id. */
  chatId: string;
  /** Active conversation. */
  isActive: boolean;
  /** The kind. */
  kind: MessageKind;
  /** Metadata. */
  context: Record<string, unknown>;
  /** Attachments. */
  media: MediaItem[];
  /** Per-message resource, or null. */
  lifespan: AsyncDisposable | null;
  /** Where replies go. */
  outputChannel: string;

  /**
   * Creates the object.
   *
   * @param init the fields
   */
  constructor(init: ChannelMessageInit) {
    this.sessionId = init.sessionId;
    this.channel = init.channel;
    this.content = init.content;
    this.chatId = init.chatId ?? "default";
    this.isActive = init.isActive ?? false;
    this.kind = init.kind ?? "normal";
    this.context = init.context ?? {};
    this.media = init.media ?? [];
    this.lifespan = init.lifespan ?? null;
    this.outputChannel = init.outputChannel || this.channel;
    this.context.channel = `$${this.channel}`;
    this.context.chat_id = this.chatId;
  }

  /** `key=value` pairs of context keys not starting with `_`, joined by `|`. */
  get contextStr(): string {
    return formatContext(this.context);
  }

  /**
   * One message from a burst: a copy of the last one with contents joined by newlines and all
   * media.
   *
   * @throws {RangeError} for an empty batch
   */
  static fromBatch(batch: readonly ChannelMessage[]): ChannelMessage {
    const last = batch.at(-1);
    if (!last) throw new RangeError("Batch cannot be empty");
    const merged = Object.assign(Object.create(ChannelMessage.prototype), last) as ChannelMessage;
    merged.content = batch.map((message) => message.content).join("\n");
    merged.media = batch.flatMap((message) => message.media);
    return merged;
  }
}

/** `key=value` pairs of `context` keys not starting with `_`, joined by `|`. */
export function formatContext(context: Record<string, unknown>): string {
  return Object.entries(context)
    .filter(([key]) => !key.startsWith("_"))
    .map(([key, value]) => `${key}=${String(value)}`)
    .join("|");
}

/** The context string of any envelope: its `contextStr`, else its `context` formatted. */
export function contextStrOf(message: unknown): string {
  if (typeof message !== "object" || message === null) return "";
  const direct = (message as { contextStr?: unknown }).contextStr;
  if (typeof direct === "string") return direct;
  const context = (message as { context?: unknown }).context;
  return typeof context === "object" && context !== null
    ? formatContext(context as Record<string, unknown>)
    : "";
}
