/**
 * Media of the Teams channel.
 *
 * In: an activity's attachments, as the adapter reads them: an image pasted into a message is an
 * `image/*` attachment whose `contentUrl` is on the Bot Framework attachment service of the
 * activity's `serviceUrl` (fetched with the bot's token, the only host that gets it); a file sent
 * in a personal chat is a `application/vnd.microsoft.teams.file.download.info` attachment whose
 * `content.downloadUrl` is a pre-authorized OneDrive / SharePoint link (fetched without a token).
 * Files are fetched from the activity's `serviceUrl` host, `*.sharepoint.com` and the `api_base`
 * host only. Teams names no sizes: a file over the media limit is found so while it streams in.
 *
 * Out: Teams shows PNG, JPEG and GIF images up to 1 MB (and 1024×1024 px) inline, sent as
 * `data:` URLs in the message's attachments; any other file a bot can send only in a personal
 * chat, by asking the user's consent to put it in their OneDrive (`_teams_files.ts`). A file
 * Teams cannot take becomes a note in the answer.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import type { FileUpload, Message } from "chat";
import { type InboundMedia, notAttachedNote } from "./_media.ts";
import type { OutboundFile } from "./_outbound_media.ts";
import { fetchMediaResult, hostOf } from "./_media_fetch.ts";

/** Where Teams puts the files users send a bot in a personal chat (OneDrive for Business). */
export const TEAMS_FILE_HOST_SUFFIXES: readonly string[] = [".sharepoint.com"];
/** The image types Teams shows inline. */
export const TEAMS_INLINE_IMAGE_TYPES: ReadonlySet<string> = new Set([
  "image/png",
  "image/jpeg",
  "image/gif",
]);
/** The largest image Teams shows inline (1 MB). */
export const TEAMS_INLINE_IMAGE_BYTES: number = 1024 * 1024;

const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** The origin of a Bot Connector `serviceUrl` that may get the bot's token (https, or loopback). */
export function connectorOrigin(serviceUrl: unknown): string | null {
  if (typeof serviceUrl !== "string") return null;
  try {
    const url = new URL(serviceUrl);
    if (url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK.test(url.hostname))) {
      return url.origin;
    }
  } catch { /* not a URL */ }
  return null;
}

/** True when `url` is the download link of a personal chat's file in `activity` (no token). */
function isFileDownload(activity: unknown, url: string): boolean {
  const attachments = (activity as { attachments?: unknown } | null)?.attachments;
  return Array.isArray(attachments) &&
    attachments.some((attachment) =>
      (attachment as { content?: { downloadUrl?: unknown } } | null)?.content?.downloadUrl === url
    );
}

/**
 * The Teams {@link InboundMedia}: each attachment's URL with the activity's `serviceUrl` (a cluster
 * stores both), fetched from the Teams hosts, with `botToken()` for an attachment of the
 * `serviceUrl` origin only (a file's download link carries its own authorization).
 */
export function teamsInboundMedia(
  apiBase: string | null | undefined,
  botToken: () => Promise<string>,
): InboundMedia {
  return {
    locate(attachment, _index, message: Message) {
      if (!attachment.url) return "not downloadable";
      const serviceUrl = (message.raw as { serviceUrl?: unknown } | null)?.serviceUrl;
      return {
        url: attachment.url,
        service_url: typeof serviceUrl === "string" ? serviceUrl : null,
        ...(isFileDownload(message.raw, attachment.url) ? { download: true } : {}),
      };
    },
    fetch(location) {
      const origin = connectorOrigin(location.service_url);
      const hosts = [origin ? new URL(origin).hostname : null, hostOf(apiBase)]
        .filter((host): host is string => host !== null);
      const bot = origin !== null && location.download !== true;
      return fetchMediaResult(String(location.url), {
        channel: "teams",
        hosts,
        hostSuffixes: TEAMS_FILE_HOST_SUFFIXES,
        // The bot's token goes to the Bot Framework service the activity came through, only.
        authorization: async (url) =>
          bot && url.origin === origin ? `Bearer ${await botToken()}` : null,
      });
    },
  };
}

/** How the files of one outbound Teams message go out. */
export interface TeamsFilePlan {
  /** Images shown inline (`data:` URLs in the message's attachments). */
  readonly inline: FileUpload[];
  /** Files offered with a consent card (personal chats). */
  readonly offered: OutboundFile[];
  /** Notes for the files Teams cannot take. */
  readonly notes: string[];
}

/** The byte size of a file's data. */
export function sizeOf(data: FileUpload["data"]): number {
  return data instanceof Blob ? data.size : data.byteLength;
}

/** How `files` go out in a personal chat (`personal`) or any other conversation. */
export async function planTeamsFiles(
  files: readonly FileUpload[],
  personal: boolean,
): Promise<TeamsFilePlan> {
  const plan: TeamsFilePlan = { inline: [], offered: [], notes: [] };
  for (const file of files) {
    const mimeType = (file.mimeType ?? "").split(";")[0]!.trim().toLowerCase();
    const size = sizeOf(file.data);
    if (TEAMS_INLINE_IMAGE_TYPES.has(mimeType) && size <= TEAMS_INLINE_IMAGE_BYTES) {
      plan.inline.push(file);
    } else if (personal) {
      const data = file.data instanceof Blob
        ? Buffer.from(await file.data.arrayBuffer())
        : Buffer.isBuffer(file.data)
        ? file.data
        : Buffer.from(file.data);
      plan.offered.push({
        data,
        filename: file.filename,
        mimeType: file.mimeType || "application/octet-stream",
      });
    } else {
      const reason = mimeType.startsWith("image/")
        ? "Teams shows PNG, JPEG and GIF images up to 1 MB inline"
        : "a Teams bot can send files only in a personal chat";
      plan.notes.push(notAttachedNote(file.filename, reason));
    }
  }
  return plan;
}
