/**
 * Media of an incoming Chat SDK message: its attachments (Slack files, Discord attachments)
 * become the envelope's media parts, loaded lazily like Telegram's photos and documents. The
 * bytes are fetched by Bub (not the SDK, whose guarded fetch refuses proxies and fakes on
 * private addresses) from the platform's file hosts or the `api_base` host only, with the bot
 * token where the platform wants it (Slack private URLs), bounded by the Telegram channel's
 * media size limit: a file known to be larger becomes a note in the content instead of a part.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import type { Attachment, Message } from "chat";
import { getLogger } from "../../_internal/log.ts";
import { MediaItem, type MediaType } from "../../kernel/channel_message.ts";
import { MAX_MEDIA_BYTES } from "../media_limit.ts";
import { readBounded } from "../../_internal/bounded_read.ts";

/** Where a platform's files may be fetched from and with which authorization. */
export interface MediaSource {
  /** The channel name, for logs. */
  readonly channel: string;
  /** Host names the files may come from (the platform's file hosts, the `api_base` host). */
  readonly hosts: readonly string[];
  /** The `authorization` header sent to those hosts, or null. */
  readonly authorization: string | null;
}

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

const URLS = new WeakMap<MediaItem, string>();

/** The file URL behind a media item {@link messageMedia} built (a cluster stores it); else null. */
export function mediaUrlOf(item: unknown): string | null {
  return typeof item === "object" && item !== null ? URLS.get(item as MediaItem) ?? null : null;
}

const TYPES: Record<Attachment["type"], MediaType> = {
  image: "image",
  audio: "audio",
  video: "video",
  file: "document",
};

/** The file hosts of each platform (besides its `api_base` host). */
export const PLATFORM_FILE_HOSTS: Readonly<Record<string, readonly string[]>> = {
  slack: ["files.slack.com"],
  discord: ["cdn.discordapp.com", "media.discordapp.net"],
};

/** The {@link MediaSource} of a platform: its file hosts, the `api_base` host, the token. */
export function mediaSource(
  channel: string,
  apiBase: string | null | undefined,
  authorization: string | null,
): MediaSource {
  const hosts = [...(PLATFORM_FILE_HOSTS[channel] ?? [])];
  if (apiBase) {
    try {
      hosts.push(new URL(apiBase).hostname);
    } catch { /* not a URL: the platform's hosts only */ }
  }
  return { channel, hosts, authorization };
}

function trusted(url: URL, source: MediaSource): boolean {
  return (url.protocol === "https:" || url.protocol === "http:") &&
    source.hosts.includes(url.hostname);
}

/** Reads `response`'s body, or null when it is (or grows) past `limit` bytes. */
async function boundedBody(response: Response, limit: number): Promise<Uint8Array | null> {
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel();
    return null;
  }
  const tooLarge = new Error("too large");
  try {
    return await readBounded(response.body, limit, () => tooLarge);
  } catch (error) {
    if (error === tooLarge) return null;
    throw error;
  }
}

/**
 * Fetches `href` from a trusted host (no redirects: a token never follows one elsewhere); null
 * when untrusted, failing or over {@link MAX_MEDIA_BYTES}.
 */
export async function fetchMedia(href: string, source: MediaSource): Promise<Uint8Array | null> {
  const logger = getLogger(["bub", "channels", source.channel]);
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if (!trusted(url, source)) {
    logger.warning("{channel}.media refused host={host}: not a file host of the platform", {
      channel: source.channel,
      host: url.hostname,
    });
    return null;
  }
  try {
    const response = await fetch(url, {
      headers: source.authorization ? { authorization: source.authorization } : {},
      redirect: "manual",
      signal: AbortSignal.timeout(30_000),
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`HTTP ${response.status}`);
    }
    if ((response.headers.get("content-type") ?? "").includes("text/html")) {
      // Slack's answer to a download without the files:read scope: its login page.
      await response.body?.cancel();
      throw new Error("received an HTML page instead of the file (files:read scope missing?)");
    }
    return await boundedBody(response, MAX_MEDIA_BYTES);
  } catch (error) {
    logger.warning("{channel}.media download failed host={host}: {error}", {
      channel: source.channel,
      host: url.hostname,
      error: (error as Error).message,
    });
    return null;
  }
}

/** The media parts of `message`'s attachments and their descriptions for the content. */
export function messageMedia(message: Message, source: MediaSource): MessageMedia {
  const media: MediaItem[] = [];
  const attachments: AttachmentInfo[] = [];
  for (const attachment of message.attachments ?? []) {
    const type = TYPES[attachment.type] ?? "document";
    const info: AttachmentInfo = {
      name: attachment.name ?? null,
      type,
      mime_type: attachment.mimeType || "application/octet-stream",
      size: typeof attachment.size === "number" ? attachment.size : null,
    };
    attachments.push(info);
    const url = attachment.url;
    if (!url) {
      info.note = "not downloadable";
      continue;
    }
    if (info.size !== null && info.size > MAX_MEDIA_BYTES) {
      info.note = `not shown: larger than the ${MAX_MEDIA_BYTES} byte media limit`;
      continue;
    }
    const item = new MediaItem({
      type,
      mimeType: info.mime_type,
      filename: info.name,
      dataFetcher: () => fetchMedia(url, source),
    });
    URLS.set(item, url);
    media.push(item);
  }
  return { media, attachments };
}

/** A file to post with a message (the Chat SDK's `FileUpload`). */
export interface OutboundFile {
  data: Buffer;
  filename: string;
  mimeType: string;
}

const EXTENSIONS: Record<MediaType, string> = {
  image: "png",
  audio: "mp3",
  video: "mp4",
  document: "bin",
};

/**
 * The files of an outbound message's media: each item's bytes (its fetcher, else a `data:` URL;
 * http URLs stay links the text may carry), at most {@link MAX_MEDIA_BYTES} each.
 */
export async function outboundFiles(media: readonly MediaItem[]): Promise<OutboundFile[]> {
  const files: OutboundFile[] = [];
  for (const [index, item] of media.entries()) {
    const url = item.url ?? "";
    const data = item.dataFetcher
      ? await item.dataFetcher()
      : url.startsWith("data:")
      ? new Uint8Array(await (await fetch(url)).arrayBuffer())
      : null;
    if (data === null || data.byteLength > MAX_MEDIA_BYTES) continue;
    const subtype = item.mimeType.split("/")[1]?.replace(/[^a-z0-9]/gi, "") || "";
    const filename = item.filename ||
      `file-${index + 1}.${subtype || EXTENSIONS[item.type] || "bin"}`;
    files.push({ data: Buffer.from(data), filename, mimeType: item.mimeType });
  }
  return files;
}
