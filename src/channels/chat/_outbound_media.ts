/**
 * The media of an outbound message, sorted for posting: files with their bytes (at most the
 * media limit each), the ones that cannot be sent (too large, no bytes; named with their size
 * so a platform can say so instead of dropping them), and http(s) URLs, which stay links. The
 * SDK posts the files where its adapter can (Slack, Discord); GitHub and Linear turn them into
 * Markdown of the comment instead (`_github_media.ts`, `_linear_media.ts`).
 *
 * @module
 */
import { Buffer } from "node:buffer";
import type { MediaItem, MediaType } from "../../kernel/channel_message.ts";
import { MAX_MEDIA_BYTES } from "../media_limit.ts";

/** A file to post with a message (the Chat SDK's `FileUpload`). */
export interface OutboundFile {
  data: Buffer;
  filename: string;
  mimeType: string;
}

/** A media item that is not sent: its name, type and size (null: unknown). */
export interface UnsentMedia {
  filename: string;
  mimeType: string;
  /** The byte size, or null when the bytes could not be read. */
  size: number | null;
  /** True when it is over {@link MAX_MEDIA_BYTES}. */
  tooLarge: boolean;
  /** Why else it was not sent (`upload failed`), if known. */
  reason?: string;
}

/** A media item that is an http(s) URL: posted as a link. */
export interface MediaLink {
  filename: string;
  url: string;
  image: boolean;
}

/** The media of an outbound message, sorted (see the module doc). */
export interface OutboundMedia {
  files: OutboundFile[];
  unsent: UnsentMedia[];
  links: MediaLink[];
}

const EXTENSIONS: Record<MediaType, string> = {
  image: "png",
  audio: "mp3",
  video: "mp4",
  document: "bin",
};

function filenameOf(item: MediaItem, index: number): string {
  if (item.filename) return item.filename;
  const subtype = item.mimeType.split("/")[1]?.replace(/[^a-z0-9]/gi, "") || "";
  return `file-${index + 1}.${subtype || EXTENSIONS[item.type] || "bin"}`;
}

async function bytesOf(item: MediaItem, url: string): Promise<Uint8Array | null> {
  try {
    if (item.dataFetcher) return await item.dataFetcher();
    if (url.startsWith("data:")) return new Uint8Array(await (await fetch(url)).arrayBuffer());
  } catch { /* unreadable: not sent */ }
  return null;
}

/**
 * Sorts `media` into files (each item's fetcher, else a `data:` URL; at most
 * {@link MAX_MEDIA_BYTES} each), unsent items and http(s) links.
 */
export async function outboundMedia(media: readonly MediaItem[]): Promise<OutboundMedia> {
  const sorted: OutboundMedia = { files: [], unsent: [], links: [] };
  for (const [index, item] of media.entries()) {
    const url = item.url ?? "";
    const filename = filenameOf(item, index);
    if (!item.dataFetcher && /^https?:\/\//i.test(url)) {
      sorted.links.push({ filename, url, image: item.type === "image" });
      continue;
    }
    const data = await bytesOf(item, url);
    if (data === null || data.byteLength > MAX_MEDIA_BYTES) {
      const size = data?.byteLength ?? null;
      const tooLarge = size !== null;
      sorted.unsent.push({ filename, mimeType: item.mimeType, size, tooLarge });
      continue;
    }
    sorted.files.push({ data: Buffer.from(data), filename, mimeType: item.mimeType });
  }
  return sorted;
}

/** A file name made safe inside Markdown link text and code spans. */
export function markdownName(name: string): string {
  return name.replace(/[\r\n`[\]()<>]/g, "_").slice(0, 200) || "file";
}

/** `url` with the characters that would end a Markdown link destination percent-encoded. */
function linkTarget(url: string): string {
  return url.replace(/[\s()<>]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

/** Markdown of a link: `![name](url)` for an image, `[name](url)` else. */
export function linkMarkdown(name: string, url: string, image: boolean): string {
  return `${image ? "!" : ""}[${markdownName(name)}](${linkTarget(url)})`;
}

/** {@link linkMarkdown} of each of `links`. */
export function linksMarkdown(links: readonly MediaLink[]): string[] {
  return links.map((link) => linkMarkdown(link.filename, link.url, link.image));
}

/** The size of a file as a note says it (`1234 bytes`, or why it is not known). */
function sizeText(file: UnsentMedia): string {
  if (file.tooLarge) return `${file.size} bytes, over the ${MAX_MEDIA_BYTES} byte media limit`;
  const size = file.size === null ? "could not be read" : `${file.size} bytes`;
  return file.reason ? `${size}, ${file.reason}` : size;
}

/**
 * A Markdown note naming files that could not be attached, and why (`heading`), one line each
 * with name, type and size; "" when there are none.
 */
export function unsentNote(heading: string, files: readonly UnsentMedia[]): string {
  if (files.length === 0) return "";
  const lines = files.map((file) =>
    `- \`${markdownName(file.filename)}\` (${file.mimeType}, ${sizeText(file)})`
  );
  return [`_${heading}_`, ...lines].join("\n");
}
