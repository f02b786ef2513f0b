/**
 * Fetching the bytes of an attachment of an incoming Chat SDK message. Bub fetches them itself
 * (not the SDK, whose guarded fetch refuses proxies and fakes on private addresses), and only:
 *
 * - from a host that belongs to the platform: its file hosts (exact names or, for Microsoft's
 *   SharePoint, a name suffix) and the `api_base` host, and there only the URLs that are files
 *   (`accepts`: GitHub's attachment paths on github.com);
 * - with the authorization the platform wants where it wants it (Slack's private URLs, Teams'
 *   Bot Framework attachment service, the Google Chat API, GitHub's attachment paths), decided
 *   per URL, so a token never goes to another host;
 * - following a redirect only where the platform names its target (GitHub's signed storage
 *   URLs): one hop, without the authorization;
 * - up to {@link MAX_MEDIA_BYTES}, checked against the declared length and while the body streams.
 *
 * @module
 */
import { getLogger } from "../../_internal/log.ts";
import { readBounded } from "../../_internal/bounded_read.ts";
import { MAX_MEDIA_BYTES } from "../media_limit.ts";

/** Where a platform's files may be fetched from and with which authorization. */
export interface MediaSource {
  /** The channel name, for logs and notes. */
  readonly channel: string;
  /** Host names the files may come from (the platform's file hosts, the `api_base` host). */
  readonly hosts: readonly string[];
  /** Host name suffixes (`.sharepoint.com`) whose hosts the files may come from too. */
  readonly hostSuffixes?: readonly string[];
  /**
   * The `authorization` header: one value for every trusted host (Slack), none (null), or per
   * URL (null: none for that URL).
   */
  readonly authorization: string | null | ((url: URL) => Promise<string | null>);
  /** Which URLs of those hosts are files at all (default: every one). */
  readonly accepts?: (url: URL) => boolean;
  /** Which file URLs get the authorization (default: every one). */
  readonly authorizes?: (url: URL) => boolean;
  /**
   * Where a file URL may redirect to (a signed storage URL): that one hop is followed, without
   * the authorization; default nowhere (a redirect fails the download).
   */
  readonly redirects?: (target: URL) => boolean;
}

/** The bytes of a fetched file, or why there are none (a note for the model). */
export type MediaFetch = { readonly data: Uint8Array } | { readonly failure: string };

/** The outcome of {@link downloadMedia}: the bytes and their type, or why there are none. */
export type Download =
  | { data: Uint8Array; mimeType: string | null }
  | { failure: "refused" | "too_large" | "failed"; reason: string };

/** The note of a file over the media limit. */
export const TOO_LARGE_NOTE: string =
  `not shown: larger than the ${MAX_MEDIA_BYTES} byte media limit`;

/** The file hosts of each platform (besides its `api_base` host). */
export const PLATFORM_FILE_HOSTS: Readonly<Record<string, readonly string[]>> = {
  slack: ["files.slack.com"],
  discord: ["cdn.discordapp.com", "media.discordapp.net"],
};

/** The host name of `url`, or null when it is not a URL. */
export function hostOf(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}

/** The {@link MediaSource} of a platform: its file hosts, the `api_base` host, the token. */
export function mediaSource(
  channel: string,
  apiBase: string | null | undefined,
  authorization: MediaSource["authorization"],
  fileHosts: readonly string[] = PLATFORM_FILE_HOSTS[channel] ?? [],
): MediaSource {
  const apiHost = hostOf(apiBase);
  return { channel, hosts: apiHost ? [...fileHosts, apiHost] : [...fileHosts], authorization };
}

function web(url: URL): boolean {
  return url.protocol === "https:" || url.protocol === "http:";
}

/** True when `url` is a file of `source`: on one of its hosts, and accepted there. */
export function isMediaUrl(url: URL, source: MediaSource): boolean {
  if (!web(url)) return false;
  const host = url.hostname.toLowerCase();
  const onHost = source.hosts.some((name) => name.toLowerCase() === host) ||
    (source.hostSuffixes ?? []).some((suffix) => host.endsWith(suffix.toLowerCase()));
  return onHost && (source.accepts?.(url) ?? true);
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

function get(url: URL, authorization: string | null): Promise<Response> {
  return fetch(url, {
    headers: authorization ? { authorization } : {},
    redirect: "manual",
    signal: AbortSignal.timeout(30_000),
  });
}

async function authorizationFor(url: URL, source: MediaSource): Promise<string | null> {
  if (!(source.authorizes?.(url) ?? true)) return null;
  const { authorization } = source;
  return typeof authorization === "function" ? await authorization(url) : authorization;
}

/**
 * Fetches `href` from a file host of `source` (see the module doc). Refused when the URL is not
 * a file of the source; too large past {@link MAX_MEDIA_BYTES}; failed on any other error
 * (logged).
 */
export async function downloadMedia(href: string, source: MediaSource): Promise<Download> {
  const logger = getLogger(["bub", "channels", source.channel]);
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return { failure: "refused", reason: "not a URL" };
  }
  if (!isMediaUrl(url, source)) {
    logger.warning("{channel}.media refused host={host}: not a file host of the platform", {
      channel: source.channel,
      host: url.hostname,
    });
    return {
      failure: "refused",
      reason: `${url.hostname} is not a file host of ${source.channel}`,
    };
  }
  try {
    let response = await get(url, await authorizationFor(url, source));
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
    return data === null ? { failure: "too_large", reason: TOO_LARGE_NOTE } : { data, mimeType };
  } catch (error) {
    const reason = (error as Error).message;
    logger.warning("{channel}.media download failed host={host}: {error}", {
      channel: source.channel,
      host: url.hostname,
      error: reason,
    });
    return { failure: "failed", reason };
  }
}

/** The note a model reads for a {@link Download} that brought no bytes. */
export function downloadNote(download: Exclude<Download, { data: Uint8Array }>): string {
  switch (download.failure) {
    case "refused":
      return `not fetched: ${download.reason}`;
    case "too_large":
      return TOO_LARGE_NOTE;
    case "failed":
      return `not shown: the download failed (${download.reason})`;
  }
}

/** {@link downloadMedia} as bytes, or the note saying why there are none. */
export async function fetchMediaResult(href: string, source: MediaSource): Promise<MediaFetch> {
  const download = await downloadMedia(href, source);
  return "data" in download ? { data: download.data } : { failure: downloadNote(download) };
}
