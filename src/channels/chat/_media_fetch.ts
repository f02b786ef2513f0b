/**
 * Fetching the bytes of an attachment of an incoming Chat SDK message. Bub fetches them itself
 * (not the SDK, whose guarded fetch refuses proxies and fakes on private addresses), and only:
 *
 * - from a host that belongs to the platform: its file hosts (exact names or, for Microsoft's
 *   SharePoint, a name suffix) and the `api_base` host;
 * - with the authorization the platform wants where it wants it (Slack's private URLs, Teams'
 *   Bot Framework attachment service, the Google Chat API), decided per URL, so a token never
 *   goes to another host;
 * - without following a redirect (a token never follows one elsewhere);
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
}

/** The bytes of a fetched file, or why there are none (a note for the model). */
export type MediaFetch = { readonly data: Uint8Array } | { readonly failure: string };

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
): MediaSource {
  const hosts = [...(PLATFORM_FILE_HOSTS[channel] ?? [])];
  const apiHost = hostOf(apiBase);
  if (apiHost) hosts.push(apiHost);
  return { channel, hosts, authorization };
}

function trusted(url: URL, source: MediaSource): boolean {
  if (url.protocol !== "https:" && url.protocol !== "http:") return false;
  const host = url.hostname.toLowerCase();
  return source.hosts.some((name) => name.toLowerCase() === host) ||
    (source.hostSuffixes ?? []).some((suffix) => host.endsWith(suffix.toLowerCase()));
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
 * Fetches `href` from a trusted host of `source` (see the module doc): its bytes, or the reason
 * there are none (refused host, failed download, over {@link MAX_MEDIA_BYTES}).
 */
export async function fetchMediaResult(href: string, source: MediaSource): Promise<MediaFetch> {
  const logger = getLogger(["bub", "channels", source.channel]);
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return { failure: "not fetched: not a URL" };
  }
  if (!trusted(url, source)) {
    logger.warning("{channel}.media refused host={host}: not a file host of the platform", {
      channel: source.channel,
      host: url.hostname,
    });
    return { failure: `not fetched: ${url.hostname} is not a file host of ${source.channel}` };
  }
  try {
    const authorization = typeof source.authorization === "function"
      ? await source.authorization(url)
      : source.authorization;
    const response = await fetch(url, {
      headers: authorization ? { authorization } : {},
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
    const data = await boundedBody(response, MAX_MEDIA_BYTES);
    return data === null ? { failure: TOO_LARGE_NOTE } : { data };
  } catch (error) {
    const reason = (error as Error).message;
    logger.warning("{channel}.media download failed host={host}: {error}", {
      channel: source.channel,
      host: url.hostname,
      error: reason,
    });
    return { failure: `not shown: the download failed (${reason})` };
  }
}

/** {@link fetchMediaResult}'s bytes, or null. */
export async function fetchMedia(href: string, source: MediaSource): Promise<Uint8Array | null> {
  const result = await fetchMediaResult(href, source);
  return "data" in result ? result.data : null;
}
