/**
 * Attachments that are links in a comment's Markdown (GitHub, Linear): the images
 * (`![alt](url)`, `<img src>`) and links (`[name](url)`, bare URLs) whose URL is a file of the
 * platform ({@link isMediaUrl}: its attachment hosts, or the `api_base` host) become media
 * parts; any other link stays text and is never fetched. Neither platform says how large a file
 * is, so the files are downloaded when the comment arrives (bounded by the media limit, at most
 * {@link MAX_LINKED} per comment, in parallel) and one that is too large or unreachable becomes
 * a note in the content, as Slack's oversized files do.
 *
 * @module
 */
import type { Message } from "chat";
import type { MediaItem, MediaType } from "../../kernel/channel_message.ts";
import { type AttachmentInfo, ChatMediaItem, type MessageMedia } from "./_media.ts";
import { downloadMedia, isMediaUrl, type MediaSource, TOO_LARGE_NOTE } from "./_media_fetch.ts";

/** Most attachments fetched from one comment. */
export const MAX_LINKED = 8;

/** An attachment link found in a comment. */
export interface AttachmentLink {
  url: string;
  /** The link text or image alt text, else the URL's last path segment. */
  name: string;
  /** True for an image (`![…]`, `<img>`). */
  image: boolean;
}

interface MdNode {
  type?: string;
  url?: string;
  alt?: string | null;
  value?: string;
  children?: MdNode[];
}

const IMG_TAG = /<img\b[^>]*>/gi;

function attribute(tag: string, name: string): string | null {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, "i").exec(tag);
  return match ? (match[1] ?? match[2] ?? "") : null;
}

function textOf(node: MdNode): string {
  if (typeof node.value === "string") return node.value;
  return (node.children ?? []).map(textOf).join("");
}

function lastSegment(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.split("/").filter(Boolean).at(-1) ?? "");
  } catch {
    return "";
  }
}

function* linksIn(node: MdNode): Generator<AttachmentLink> {
  if (node.type === "image" && node.url) {
    yield { url: node.url, name: node.alt ?? "", image: true };
  } else if (node.type === "link" && node.url) {
    const text = textOf(node).trim();
    yield { url: node.url, name: text === node.url ? "" : text, image: false };
  } else if (node.type === "html" && node.value) {
    for (const [tag] of node.value.matchAll(IMG_TAG)) {
      const src = attribute(tag, "src");
      if (src) yield { url: src, name: attribute(tag, "alt") ?? "", image: true };
    }
  }
  for (const child of node.children ?? []) yield* linksIn(child);
}

/** The attachment links of a Markdown tree (mdast) that are files of `source`, each once. */
export function attachmentLinks(root: unknown, source: MediaSource): AttachmentLink[] {
  const found = new Map<string, AttachmentLink>();
  for (const link of linksIn((root ?? {}) as MdNode)) {
    let url: URL;
    try {
      url = new URL(link.url);
    } catch {
      continue;
    }
    if (found.has(url.href) || !isMediaUrl(url, source)) continue;
    // "Image" is what GitHub writes as every pasted image's alt text: the URL names it better.
    const generic = /^(image|img|screenshot)?$/i.test(link.name.trim());
    const name = generic ? lastSegment(url.href) || link.name || "file" : link.name;
    found.set(url.href, { ...link, url: url.href, name });
  }
  return [...found.values()];
}

const BY_EXTENSION: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
  txt: "text/plain",
  md: "text/markdown",
  csv: "text/csv",
  json: "application/json",
  zip: "application/zip",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  ogg: "audio/ogg",
  m4a: "audio/mp4",
  mp4: "video/mp4",
  mov: "video/quicktime",
  webm: "video/webm",
};

const SIGNATURES: [number[], string][] = [
  [[0x89, 0x50, 0x4e, 0x47], "image/png"],
  [[0xff, 0xd8, 0xff], "image/jpeg"],
  [[0x47, 0x49, 0x46, 0x38], "image/gif"],
  [[0x25, 0x50, 0x44, 0x46], "application/pdf"],
];

/**
 * The MIME type of a downloaded attachment: the answer's own type unless it is a generic one,
 * else the name's extension, else the bytes' signature (PNG, JPEG, GIF, WebP, PDF).
 */
export function mimeTypeOf(answered: string | null, name: string, data: Uint8Array): string {
  const generic = !answered || /^(application|binary)\/octet-stream$/.test(answered);
  if (!generic) return answered;
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase() ?? "";
  if (BY_EXTENSION[extension]) return BY_EXTENSION[extension];
  for (const [bytes, mime] of SIGNATURES) {
    if (bytes.every((byte, i) => data[i] === byte)) return mime;
  }
  const riff = String.fromCharCode(...data.subarray(8, 12));
  return riff === "WEBP" ? "image/webp" : "application/octet-stream";
}

function typeOf(mimeType: string): MediaType {
  const kind = mimeType.split("/")[0];
  return kind === "image" || kind === "audio" || kind === "video" ? kind : "document";
}

/**
 * Downloads the attachments linked in `message` (its Markdown tree) from `source` and returns
 * them as media parts (the bytes held until the prompt is built) with their descriptions; a
 * file too large, unreachable or beyond {@link MAX_LINKED} is only described, with a note.
 */
export async function linkedMedia(message: Message, source: MediaSource): Promise<MessageMedia> {
  const links = attachmentLinks(message.formatted, source);
  const downloads = await Promise.all(
    links.slice(0, MAX_LINKED).map((link) => downloadMedia(link.url, source)),
  );
  const media: MediaItem[] = [];
  const attachments: AttachmentInfo[] = [];
  for (const [index, link] of links.entries()) {
    const download = downloads[index];
    if (download === undefined || !("data" in download)) {
      const guess = link.image ? "image/png" : mimeTypeOf(null, link.name, new Uint8Array());
      attachments.push({
        name: link.name,
        type: link.image ? "image" : typeOf(guess),
        mime_type: guess,
        size: null,
        note: download === undefined
          ? `not shown: only ${MAX_LINKED} attachments of a message are fetched`
          : download.failure === "too_large"
          ? TOO_LARGE_NOTE
          : "not shown: could not be downloaded",
      });
      continue;
    }
    const { data } = download;
    const mimeType = mimeTypeOf(download.mimeType, link.name, data);
    const type = typeOf(mimeType);
    attachments.push({ name: link.name, type, mime_type: mimeType, size: data.byteLength });
    // Another cluster instance fetches it again from the stored location.
    const init = { type, mimeType, filename: link.name };
    media.push(new ChatMediaItem(init, { url: link.url }, () => Promise.resolve({ data })));
  }
  return { media, attachments };
}
