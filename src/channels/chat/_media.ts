/**
 * Media of an incoming Chat SDK message: its attachments (Slack files, Discord attachments)
 * become the envelope's media parts, loaded lazily like Telegram's photos and documents. The
 * bytes are fetched by Bub (not the SDK, whose guarded fetch refuses proxies and fakes on
 * private addresses) from the platform's file hosts or the `api_base` host only, with the bot
 * token where the platform wants it (Slack private URLs), bounded by the Telegram channel's
 * media size limit: a file known to be larger becomes a note in the content instead of a part.
 * GitHub's and Linear's attachments are links in the comment instead (`_linked_media.ts`).
 *
 * @module
 */
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
  /** Which URLs of those hosts are files at all (default: every one). */
  readonly accepts?: (url: URL) => boolean;
  /** Which file URLs get the authorization (default: every one). */
  readonly authorizes?: (url: URL) => boolean;
  /**
   * Where a file URL may redirect to (a signed storage URL): that one hop is followed, without
   * the authorization; default nowhere (a redirect fails the download).
   */
  readonly redirects?: (target: URL) => boolean;
  /** True when the attachments are links in the message's Markdown (GitHub, Linear). */
  readonly linked?: boolean;
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

/** The note of an attachment over {@link MAX_MEDIA_BYTES}. */
export const TOO_LARGE_NOTE: string =
  `not shown: larger than the ${MAX_MEDIA_BYTES} byte media limit`;

const URLS = new WeakMap<MediaItem, string>();

/** Remembers the file URL behind `item` (see {@link mediaUrlOf}). */
export function rememberUrl(item: MediaItem, url: string): void {
  URLS.set(item, url);
}

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

/** The host name of `apiBase`, or null (unset, not a URL). */
export function apiBaseHost(apiBase: string | null | undefined): string | null {
  if (!apiBase) return null;
  try {
    return new URL(apiBase).hostname;
  } catch {
    return null;
  }
}

/** The {@link MediaSource} of a platform: its file hosts, the `api_base` host, the token. */
export function mediaSource(
  channel: string,
  apiBase: string | null | undefined,
  authorization: string | null,
  fileHosts: readonly string[] = PLATFORM_FILE_HOSTS[channel] ?? [],
): MediaSource {
  const host = apiBaseHost(apiBase);
  return { channel, hosts: host === null ? [...fileHosts] : [...fileHosts, host], authorization };
}

function web(url: URL): boolean {
  return url.protocol === "https:" || url.protocol === "http:";
}

/** True when `url` is a file of `source`: on one of its hosts (and accepted there). */
export function isMediaUrl(url: URL, source: MediaSource): boolean {
  return web(url) && source.hosts.includes(url.hostname) && (source.accepts?.(url) ?? true);
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

/** The outcome of {@link downloadMedia}. */
export type Download =
  | { data: Uint8Array; mimeType: string | null }
  | { failure: "refused" | "too_large" | "failed" };

function get(url: URL, authorization: string | null): Promise<Response> {
  return fetch(url, {
    headers: authorization ? { authorization } : {},
    redirect: "manual",
    signal: AbortSignal.timeout(30_000),
  });
}

/**
 * Fetches `href` from a file host of `source`, with its authorization where it `authorizes`;
 * a redirect is followed once, without the authorization, and only where `source.redirects`
 * allows it (a token never follows a redirect). Refused when the URL is not a file of the
 * source; too large past {@link MAX_MEDIA_BYTES}; failed on any other error (logged).
 */
export async function downloadMedia(href: string, source: MediaSource): Promise<Download> {
  const logger = getLogger(["bub", "channels", source.channel]);
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return { failure: "refused" };
  }
  if (!isMediaUrl(url, source)) {
    logger.warning("{channel}.media refused host={host}: not a file host of the platform", {
      channel: source.channel,
      host: url.hostname,
    });
    return { failure: "refused" };
  }
  try {
    const authorized = source.authorizes?.(url) ?? true;
    let response = await get(url, authorized ? source.authorization : null);
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      const location = response.headers.get("location");
      const target = location === null ? null : new URL(location, url);
      if (target === null || !web(target) || !(source.redirects?.(target) ?? false)) {
        throw new Error(`redirect to ${target?.hostname ?? "nowhere"} not followed`);
      }
      response = await get(target, null);
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel();
        throw new Error(`a second redirect from ${target.hostname} not followed`);
      }
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`HTTP ${response.status}`);
    }
    const mimeType = response.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase() ||
      null;
    if (mimeType === "text/html") {
      // A login page (Slack without the files:read scope, GitHub without access).
      await response.body?.cancel();
      throw new Error("received an HTML page instead of the file (no access?)");
    }
    const data = await boundedBody(response, MAX_MEDIA_BYTES);
    return data === null ? { failure: "too_large" } : { data, mimeType };
  } catch (error) {
    logger.warning("{channel}.media download failed host={host}: {error}", {
      channel: source.channel,
      host: url.hostname,
      error: (error as Error).message,
    });
    return { failure: "failed" };
  }
}

/**
 * The bytes of `href` (see {@link downloadMedia}); null when refused, failing or over
 * {@link MAX_MEDIA_BYTES}.
 */
export async function fetchMedia(href: string, source: MediaSource): Promise<Uint8Array | null> {
  const download = await downloadMedia(href, source);
  return "data" in download ? download.data : null;
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
      info.note = TOO_LARGE_NOTE;
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
