/**
 * Media of an incoming Chat SDK message: its attachments become the envelope's media parts,
 * loaded lazily like Telegram's photos and documents. Where a platform's files are and how they
 * are fetched is the platform's {@link InboundMedia} (by default: the attachment's URL, from the
 * platform's file hosts, see `_media_fetch.ts`). A file known to be over the media limit becomes
 * a note in the content instead of a part; one found to be (a platform that names no sizes), or
 * refused, or failing, says why when it is read ({@link ChatMediaItem.unavailable}), and the
 * prompt names that instead of the part. GitHub's and Linear's attachments are links in the
 * comment instead (`_linked_media.ts`). Outbound: the note for a file a platform cannot take (the
 * files themselves: `_outbound_media.ts`).
 *
 * @module
 */
import type { Attachment, Message } from "chat";
import { MediaItem, type MediaType } from "../../kernel/channel_message.ts";
import { MAX_MEDIA_BYTES } from "../media_limit.ts";
import {
  fetchMediaResult,
  type MediaFetch,
  type MediaSource,
  TOO_LARGE_NOTE,
} from "./_media_fetch.ts";

/** An attachment as described to the model in the message's JSON content. */
export interface AttachmentInfo {
  name: string | null;
  type: MediaType;
  mime_type: string;
  size: number | null;
  note?: string;
}

/** The media parts of a message and the descriptions that go into its content. */
export interface MessageMedia {
  media: MediaItem[];
  attachments: AttachmentInfo[];
}

/**
 * Where an attachment's bytes are: a URL and what else its fetch needs (JSON: a cluster stores it
 * with the message, and another instance fetches from it).
 */
export type MediaLocation = { readonly url: string } & Readonly<Record<string, unknown>>;

/** How a platform's inbound attachments are found and fetched. */
export interface InboundMedia {
  /**
   * Where `attachment`'s bytes are (its `index` among `message`'s attachments), or a note saying
   * why they are not fetched (a Drive file, no URL).
   */
  locate(attachment: Attachment, index: number, message: Message): MediaLocation | string;
  /** Fetches the bytes at a location (bounded, from the platform's hosts only). */
  fetch(location: Readonly<Record<string, unknown>>): Promise<MediaFetch>;
  /**
   * Set where the attachments are links in the message's Markdown (GitHub, Linear): the links
   * that are files of this source are downloaded when the message arrives (`_linked_media.ts`).
   */
  readonly links?: MediaSource;
}

/** The default {@link InboundMedia}: the attachment's URL, fetched from `source`. */
export function urlMedia(source: MediaSource): InboundMedia {
  return {
    locate: (attachment) => attachment.url ? { url: attachment.url } : "not downloadable",
    fetch: (location) =>
      typeof location.url === "string"
        ? fetchMediaResult(location.url, source)
        : Promise.resolve({ failure: "not fetched: no URL" }),
  };
}

/** The {@link InboundMedia} of a platform whose attachments are links to files of `source`. */
export function linkedFiles(source: MediaSource): InboundMedia {
  return { ...urlMedia(source), links: source };
}

/**
 * A media item of a chat message: where its bytes are, and, after a fetch that brought none,
 * why (`unavailable`; the prompt names it in place of the part).
 */
export class ChatMediaItem extends MediaItem {
  /** Where the bytes are (what a cluster stores). */
  readonly location: MediaLocation;
  /** Why the last fetch brought no bytes, or null. */
  unavailable: string | null = null;

  /** @param init the item's fields, its location and how its bytes are fetched */
  constructor(
    init: { type: MediaType; mimeType: string; filename: string | null },
    location: MediaLocation,
    fetch: (location: MediaLocation) => Promise<MediaFetch>,
  ) {
    super({
      ...init,
      dataFetcher: async () => {
        const result = await fetch(location);
        this.unavailable = "failure" in result ? result.failure : null;
        return "data" in result ? result.data : null;
      },
    });
    this.location = location;
  }
}

/** The location behind a media item {@link messageMedia} built (a cluster stores it); else null. */
export function mediaLocationOf(item: unknown): MediaLocation | null {
  return item instanceof ChatMediaItem ? item.location : null;
}

const TYPES: Record<Attachment["type"], MediaType> = {
  image: "image",
  audio: "audio",
  video: "video",
  file: "document",
};

/** The media parts of `message`'s attachments and their descriptions for the content. */
export function messageMedia(message: Message, platform: InboundMedia): MessageMedia {
  const media: MediaItem[] = [];
  const attachments: AttachmentInfo[] = [];
  for (const [index, attachment] of (message.attachments ?? []).entries()) {
    const type = TYPES[attachment.type] ?? "document";
    const info: AttachmentInfo = {
      name: attachment.name ?? null,
      type,
      mime_type: attachment.mimeType || "application/octet-stream",
      size: typeof attachment.size === "number" ? attachment.size : null,
    };
    attachments.push(info);
    const location = platform.locate(attachment, index, message);
    if (typeof location === "string") {
      info.note = location;
      continue;
    }
    if (info.size !== null && info.size > MAX_MEDIA_BYTES) {
      info.note = TOO_LARGE_NOTE;
      continue;
    }
    const init = { type, mimeType: info.mime_type, filename: info.name };
    media.push(new ChatMediaItem(init, location, (at) => platform.fetch(at)));
  }
  return { media, attachments };
}

/** The line an answer gets for a file the platform could not take, saying why. */
export function notAttachedNote(filename: string, reason: string): string {
  return `[${filename} not attached: ${reason}]`;
}

/** `markdown` followed by `notes` (one per line, after a blank line); `markdown` when none. */
export function withNotes(markdown: string, notes: readonly string[]): string {
  if (notes.length === 0) return markdown;
  return markdown.trim() === "" ? notes.join("\n") : `${markdown}\n\n${notes.join("\n")}`;
}
