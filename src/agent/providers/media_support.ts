/**
 * Which media reach which provider protocol, in one table ({@link MEDIA_SUPPORT}), and the text
 * note a model gets in place of a part its protocol cannot carry ({@link mediaNote}).
 *
 * User content parts arrive in the chat-completions shapes Python Bub uses: `image_url`,
 * `input_audio` (`{data, format}`, any format string), `video_url` and `file` (`{file_data,
 * filename}`, a data URL). The chat-completions protocols (OpenAI chat and every
 * OpenAI-compatible preset, OpenRouter-style, and Azure OpenAI's chat) carry every part unchanged:
 * the provider decides what it accepts, as with Python Bub. OpenAI Responses and Anthropic carry
 * images and PDFs (Anthropic also plain text files); Gemini and Vertex AI (`google`) carry
 * images, audio, video, PDFs and text files inline; Amazon Bedrock's Converse API carries the
 * image, document and video formats it lists ({@link MEDIA_MIME_TYPES}), as bytes only. Any
 * other part becomes a note such as `[audio, 12 s, audio/ogg — this model cannot hear audio]`
 * instead of failing the turn.
 *
 * @module
 */
import { audioSeconds } from "../../_internal/audio_duration.ts";
import { audioMimeOf } from "../../_internal/audio_mime.ts";
import type { ProviderProtocol } from "./provider_presets.ts";

/** What a media part holds, as far as protocols differ in taking it. */
export type MediaKind = "image" | "audio" | "video" | "pdf" | "text" | "file";

/**
 * The one table: per protocol, the media kinds its wire format carries. A kind marked false
 * reaches the model as a {@link mediaNote}. A protocol missing here forwards everything.
 *
 * | protocol | image | audio | video | pdf | text file | other file |
 * |---|---|---|---|---|---|---|
 * | openai-chat, openai-compatible (incl. `azure`) | ✓ | ✓ | ✓ | ✓ | ✓ | ✓ |
 * | openai-responses (incl. `azure-responses`) | ✓ | note | note | ✓ | note | note |
 * | anthropic | ✓ | note | note | ✓ | ✓ | note |
 * | google (`gemini`, `vertex`) | ✓ | ✓ | ✓ | ✓ | ✓ | note |
 * | bedrock | ✓¹ | note | ✓¹ | ✓ | ✓¹ | ✓¹ |
 *
 * ¹ only the MIME types of {@link MEDIA_MIME_TYPES}, and only inline data (no URL).
 */
export const MEDIA_SUPPORT: Readonly<
  Partial<Record<ProviderProtocol, Readonly<Record<MediaKind, boolean>>>>
> = Object.freeze({
  "openai-chat": { image: true, audio: true, video: true, pdf: true, text: true, file: true },
  "openai-compatible": {
    image: true,
    audio: true,
    video: true,
    pdf: true,
    text: true,
    file: true,
  },
  "openai-responses": {
    image: true,
    audio: false,
    video: false,
    pdf: true,
    text: false,
    file: false,
  },
  anthropic: { image: true, audio: false, video: false, pdf: true, text: true, file: false },
  google: { image: true, audio: true, video: true, pdf: true, text: true, file: false },
  bedrock: { image: true, audio: false, video: true, pdf: true, text: true, file: true },
});

/**
 * Per protocol and kind, the only MIME types its wire format takes (a kind not listed: any);
 * Amazon Bedrock's Converse API names its image, document and video formats.
 */
export const MEDIA_MIME_TYPES: Readonly<
  Partial<Record<ProviderProtocol, Readonly<Partial<Record<MediaKind, readonly string[]>>>>>
> = Object.freeze({
  bedrock: {
    image: ["image/jpeg", "image/png", "image/gif", "image/webp"],
    video: [
      "video/x-matroska",
      "video/quicktime",
      "video/mp4",
      "video/webm",
      "video/x-flv",
      "video/mpeg",
      "video/mpg",
      "video/wmv",
    ],
    text: ["text/csv", "text/html", "text/plain", "text/markdown"],
    file: [
      "application/msword",
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
      "application/vnd.ms-excel",
      "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ],
  },
});

/** Protocols that take media as inline bytes only (a part given by URL gets a note). */
const BYTES_ONLY: ReadonlySet<ProviderProtocol> = new Set(["bedrock"]);

/**
 * The note a part gets in place of itself on `protocol`, or null when the protocol carries it:
 * its kind ({@link MEDIA_SUPPORT}), its MIME type ({@link MEDIA_MIME_TYPES}) and, for a protocol
 * that takes bytes only, whether it is given by URL.
 */
export function mediaRefusal(protocol: ProviderProtocol, info: MediaPartInfo): string | null {
  if (!protocolCarries(protocol, info.kind)) return mediaNote(info);
  const mimes = MEDIA_MIME_TYPES[protocol]?.[info.kind];
  const mime = info.mimeType.toLowerCase().split(";")[0]!.trim();
  if (mimes !== undefined && mime !== "" && !mimes.includes(mime)) {
    return mediaNote(info, `this model cannot take ${mime}`);
  }
  if (BYTES_ONLY.has(protocol) && info.url !== null) {
    return mediaNote(info, "this model takes attachments as data, not links");
  }
  return null;
}

/** Whether `protocol`'s wire format carries media of `kind` (see {@link MEDIA_SUPPORT}). */
export function protocolCarries(protocol: ProviderProtocol, kind: MediaKind): boolean {
  return MEDIA_SUPPORT[protocol]?.[kind] ?? true;
}

/** A media part described: its kind, MIME type and what is known of its size and length. */
export interface MediaPartInfo {
  /** The kind the table decides by. */
  kind: MediaKind;
  /** The MIME type (`audio/ogg`, `application/pdf`, …); empty when a URL part does not say. */
  mimeType: string;
  /** Bytes of inline (base64) data; null for a part given by URL. */
  bytes: number | null;
  /** Seconds of audio, when the data's headers say. */
  seconds: number | null;
  /** The URL of a part given by URL (not a data URL), else null. */
  url: string | null;
  /** The file name of a `file` part, else null. */
  filename: string | null;
}

function base64Bytes(data: string): number {
  const clean = data.replace(/\s+/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor(clean.length * 3 / 4) - padding);
}

function kindOfMime(mime: string): MediaKind {
  const lower = mime.toLowerCase();
  if (lower === "application/pdf") return "pdf";
  const top = lower.split("/")[0];
  if (top === "image" || top === "audio" || top === "video") return top;
  if (top === "text") return "text";
  return "file";
}

function fromUrl(url: string, fallbackMime: string): Omit<MediaPartInfo, "kind" | "filename"> {
  const match = /^data:([^;,]*)((?:;[^;,]*)*),/.exec(url);
  if (!match) return { mimeType: fallbackMime, bytes: null, seconds: null, url };
  const base64 = match[2]!.includes(";base64");
  const body = url.slice(match[0].length);
  return {
    mimeType: match[1] || fallbackMime,
    bytes: base64 ? base64Bytes(body) : decodeURIComponent(body).length,
    seconds: null,
    url: null,
  };
}

function urlOf(value: unknown): string {
  if (typeof value === "string") return value;
  const url = (value as { url?: unknown } | null | undefined)?.url;
  return typeof url === "string" ? url : "";
}

/** Describes a media part; null for a text part or a part of another type. */
export function mediaPartInfo(part: Readonly<Record<string, unknown>>): MediaPartInfo | null {
  switch (part.type) {
    case "image_url": {
      const info = fromUrl(urlOf(part.image_url), "");
      return { kind: "image", ...info, filename: null };
    }
    case "video_url": {
      const info = fromUrl(urlOf(part.video_url), "");
      return { kind: "video", ...info, filename: null };
    }
    case "input_audio": {
      const audio = (part.input_audio ?? {}) as { data?: unknown; format?: unknown };
      const data = typeof audio.data === "string" ? audio.data : "";
      const format = typeof audio.format === "string" && audio.format ? audio.format : "wav";
      return {
        kind: "audio",
        mimeType: audioMimeOf(format),
        bytes: base64Bytes(data),
        seconds: audioSeconds(data, format),
        url: null,
        filename: null,
      };
    }
    case "file": {
      const file = (part.file ?? {}) as { file_data?: unknown; filename?: unknown };
      const info = fromUrl(
        typeof file.file_data === "string" ? file.file_data : "",
        "application/octet-stream",
      );
      const filename = typeof file.filename === "string" && file.filename ? file.filename : null;
      const kind = kindOfMime(info.mimeType);
      if (kind === "audio" && info.url === null) {
        const body = String(file.file_data).replace(/^[^,]*,/, "");
        info.seconds = audioSeconds(body, info.mimeType.split("/")[1] ?? "");
      }
      return { kind, ...info, filename };
    }
    default:
      return null;
  }
}

const CANNOT: Readonly<Record<MediaKind, string>> = {
  image: "this model cannot see images",
  audio: "this model cannot hear audio",
  video: "this model cannot watch video",
  pdf: "this model cannot read PDF files",
  text: "this model cannot read attached files",
  file: "this model cannot read this file type",
};

const LABEL: Readonly<Record<MediaKind, string>> = {
  image: "image",
  audio: "audio",
  video: "video",
  pdf: "PDF document",
  text: "file",
  file: "file",
};

function sizeOf(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

function secondsText(seconds: number): string {
  return seconds < 10 ? `${Math.round(seconds * 10) / 10} s` : `${Math.round(seconds)} s`;
}

/**
 * The note a model gets in place of a part it cannot take: kind (and file name), length (else
 * size, else the URL), MIME type and why, e.g.
 * `[audio, 12 s, audio/ogg — this model cannot hear audio]`. `why` replaces the reason.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mediaNote } from "./media_support.ts";
 * assert.equal(
 *   mediaNote({ kind: "video", mimeType: "video/mp4", bytes: 2048, seconds: null, url: null, filename: null }),
 *   "[video, 2.0 KiB, video/mp4 — this model cannot watch video]",
 * );
 * ```
 */
export function mediaNote(info: MediaPartInfo, why: string = CANNOT[info.kind]): string {
  const items = [info.filename ? `${LABEL[info.kind]} ${info.filename}` : LABEL[info.kind]];
  if (info.seconds !== null) items.push(secondsText(info.seconds));
  else if (info.bytes !== null) items.push(sizeOf(info.bytes));
  else if (info.url !== null) items.push(info.url);
  if (info.mimeType) items.push(info.mimeType);
  return `[${items.join(", ")} — ${why}]`;
}
