/**
 * Media on Linear. In: uploads in a comment are Markdown links to `uploads.linear.app`, Linear's
 * private file storage, which wants the same authorization as the GraphQL API (the API key, or
 * `Bearer <OAuth token>`); only that host and the `api_base` host get it, and a redirect is not
 * followed.
 *
 * Out: each file of an answer (at most the media limit) is uploaded the way Linear documents it:
 * the `fileUpload` mutation (through the adapter's GraphQL client, so with its rate-limit retry)
 * answers a signed upload URL, the headers to send and the asset URL; the bytes are PUT to that
 * URL with those headers (a storage host: never with Bub's key, no redirect followed), and the
 * comment embeds the asset URL (`![name](url)` for an image, `[name](url)` else). A file too
 * large or failing to upload is named in a note instead.
 *
 * @module
 */
import { getLogger } from "../../_internal/log.ts";
import { type MediaSource, mediaSource } from "./_media_fetch.ts";
import {
  linkMarkdown,
  linksMarkdown,
  type OutboundFile,
  type OutboundMedia,
  type UnsentMedia,
  unsentNote,
} from "./_outbound_media.ts";

/** Linear's file storage host. */
export const LINEAR_UPLOAD_HOST = "uploads.linear.app";

/** The {@link MediaSource} of Linear with the given GraphQL authorization. */
export function linearMediaSource(
  apiBase: string | null | undefined,
  authorization: string | null,
): MediaSource {
  return mediaSource("linear", apiBase, authorization, [LINEAR_UPLOAD_HOST]);
}

/** What `fileUpload` answers (the SDK's `UploadFile`). */
export interface LinearUploadFile {
  uploadUrl: string;
  assetUrl: string;
  headers: readonly { key: string; value: string }[];
}

/** Runs Linear's `fileUpload` mutation; null when it answers no upload. */
export type LinearFileUpload = (
  contentType: string,
  filename: string,
  size: number,
) => Promise<LinearUploadFile | null>;

/** Headers Bub never sends to a storage host, whatever `fileUpload` answered. */
const PRIVATE_HEADERS = new Set(["authorization", "proxy-authorization", "cookie"]);

/** Uploads `file` (see the module doc) and returns its asset URL. */
export async function uploadToLinear(
  file: OutboundFile,
  fileUpload: LinearFileUpload,
): Promise<string> {
  const upload = await fileUpload(file.mimeType, file.filename, file.data.byteLength);
  if (!upload?.uploadUrl || !upload.assetUrl) throw new Error("fileUpload answered no upload");
  const target = new URL(upload.uploadUrl);
  if (target.protocol !== "https:" && target.protocol !== "http:") {
    throw new Error(`fileUpload answered a ${target.protocol} upload URL`);
  }
  const headers = new Headers({
    "content-type": file.mimeType,
    "cache-control": "public, max-age=31536000",
  });
  for (const { key, value } of upload.headers) {
    if (!PRIVATE_HEADERS.has(key.toLowerCase())) headers.set(key, value);
  }
  const response = await fetch(target, {
    method: "PUT",
    headers,
    body: new Uint8Array(file.data),
    redirect: "manual",
    signal: AbortSignal.timeout(60_000),
  });
  await response.body?.cancel();
  if (!response.ok) {
    throw new Error(`upload to ${target.hostname} answered HTTP ${response.status}`);
  }
  return upload.assetUrl;
}

/** What Linear's comment says about files it could not attach. */
export const LINEAR_UNATTACHED = "Not attached (too large, or the upload failed):";

/**
 * The Markdown an answer's media adds to its Linear comment: each file uploaded and embedded,
 * links for http(s) URLs, and a note naming the files that could not be uploaded; "" for none.
 */
export async function linearMediaMarkdown(
  media: OutboundMedia,
  fileUpload: LinearFileUpload,
): Promise<string> {
  const embedded: string[] = [];
  const unsent: UnsentMedia[] = [...media.unsent];
  for (const file of media.files) {
    try {
      const url = await uploadToLinear(file, fileUpload);
      embedded.push(linkMarkdown(file.filename, url, file.mimeType.startsWith("image/")));
    } catch (error) {
      getLogger(["bub", "channels", "linear"]).warning(
        "linear.upload failed file={file}: {error}",
        { file: file.filename, error: (error as Error).message },
      );
      const size = file.data.byteLength;
      unsent.push({
        filename: file.filename,
        mimeType: file.mimeType,
        size,
        tooLarge: false,
        reason: "upload failed",
      });
    }
  }
  return [...embedded, ...linksMarkdown(media.links), unsentNote(LINEAR_UNATTACHED, unsent)]
    .filter((part) => part !== "")
    .join("\n\n");
}
