/**
 * Media of the Google Chat channel.
 *
 * In: a file uploaded to a message is an attachment with an `attachmentDataRef.resourceName`;
 * its bytes come from the Chat API's media download
 * (`GET <api root>/v1/media/<resourceName>?alt=media`), which a Chat app may call with its own
 * service account token (scope `chat.bot`). Only the API root's host is asked, and only it gets
 * the token; the attachment's `downloadUri` (for people signed in to Google Chat) is not used.
 * A Google Drive file is named with a note, not downloaded: the app cannot read the user's Drive.
 * Google Chat names no sizes: a file over the media limit is found so while it streams in.
 *
 * Out: the Chat API uploads an attachment only with user authentication (`media.upload` needs
 * the `chat.messages.create` scope of a signed-in user), never as the app, so a file of an answer
 * cannot be attached; the answer says so in a note instead of dropping it silently.
 *
 * @module
 */
import type { AdapterPostableMessage, FileUpload, Message } from "chat";
import { type InboundMedia, notAttachedNote, withNotes } from "./_media.ts";
import { fetchMediaResult } from "./_media_fetch.ts";

/** The Chat API root. */
export const GOOGLE_CHAT_API_ROOT = "https://chat.googleapis.com/";

/** Why an answer's file is not attached on Google Chat. */
export const GCHAT_NO_UPLOAD: string =
  "a Google Chat app cannot upload files (Google allows attachment uploads only with a " +
  "signed-in user's authorization)";

/** The note of a Google Drive attachment. */
export const GCHAT_DRIVE_NOTE = "a Google Drive file: not downloaded (the app cannot read Drive)";

/** A Chat API attachment, as far as Bub reads it. */
interface RawAttachment {
  source?: string;
  driveDataRef?: unknown;
  attachmentDataRef?: { resourceName?: string };
}

/** The raw attachments of a message event (Workspace add-on shape, or a Pub/Sub message). */
function rawAttachments(message: Message): RawAttachment[] {
  const raw = message.raw as {
    chat?: { messagePayload?: { message?: { attachment?: unknown } } };
    message?: { attachment?: unknown };
  } | null;
  const list = raw?.chat?.messagePayload?.message?.attachment ?? raw?.message?.attachment;
  return Array.isArray(list) ? list as RawAttachment[] : [];
}

/**
 * The Google Chat {@link InboundMedia}: uploaded files through the Chat API's media download at
 * `apiBase` (default Google's), with `accessToken()` for that origin only.
 */
export function gchatInboundMedia(
  apiBase: string | null | undefined,
  accessToken: () => Promise<string>,
): InboundMedia {
  const root = new URL((apiBase || GOOGLE_CHAT_API_ROOT).replace(/\/*$/, "/"));
  return {
    locate(attachment, index, message) {
      const raw = rawAttachments(message)[index];
      if (raw?.source === "DRIVE_FILE" || raw?.driveDataRef) return GCHAT_DRIVE_NOTE;
      const resourceName = attachment.fetchMetadata?.resourceName ??
        raw?.attachmentDataRef?.resourceName;
      const segments = (resourceName ?? "").split("/");
      // Opaque names only: no segment may climb out of /v1/media/.
      if (!resourceName || segments.some((s) => s === "" || s === "." || s === "..")) {
        return "not downloadable";
      }
      const path = segments.map(encodeURIComponent).join("/");
      return { url: new URL(`v1/media/${path}?alt=media`, root).href };
    },
    fetch(location) {
      return fetchMediaResult(String(location.url), {
        channel: "gchat",
        hosts: [root.hostname],
        authorization: async (url) =>
          url.origin === root.origin ? `Bearer ${await accessToken()}` : null,
      });
    },
  };
}

/** `message` without its files, each named in a note (the app cannot upload them). */
export function withoutFiles(message: AdapterPostableMessage): AdapterPostableMessage {
  if (typeof message !== "object" || message === null || !("markdown" in message)) return message;
  const files = (message as { files?: FileUpload[] }).files;
  if (!Array.isArray(files) || files.length === 0) return message;
  const notes = files.map((file) => notAttachedNote(file.filename, GCHAT_NO_UPLOAD));
  return { markdown: withNotes(message.markdown, notes) };
}
