/**
 * The builtin `buildPrompt`: comma commands pass through; other messages get the context line, a
 * local timestamp and media parts.
 *
 * @module
 */
import type { ContentPart, Prompt } from "../kernel/turn.ts";
import { contentOf, type Envelope } from "../kernel/envelope.ts";
import { inboundOf } from "../kernel/inbound.ts";
import { contextStrOf } from "../kernel/channel_message.ts";
import { audioFormatOf } from "../_internal/audio_mime.ts";

/** The local time as ISO-8601 with seconds and the UTC offset, e.g. `2026-11-29T20:05:01+01:00`. */
export function localIsoTime(now: Date = new Date()): string {
  const pad = (n: number) => String(Math.trunc(Math.abs(n))).padStart(2, "0");
  const offset = -now.getTimezoneOffset();
  const sign = offset >= 0 ? "+" : "-";
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}T${
    pad(now.getHours())
  }:${pad(now.getMinutes())}:${pad(now.getSeconds())}${sign}${pad(offset / 60)}:${
    pad(offset % 60)
  }`;
}

interface MediaLike {
  type?: unknown;
  mimeType?: unknown;
  filename?: unknown;
  getUrl?: () => Promise<string | null>;
  url?: unknown;
  /** Why its fetch brought no bytes (a chat channel's item over the media limit), if it says. */
  unavailable?: unknown;
}

async function urlOf(item: MediaLike): Promise<string | null> {
  if (typeof item.getUrl === "function") return await item.getUrl();
  return typeof item.url === "string" && item.url ? item.url : null;
}

function mimeOf(item: MediaLike): string {
  return String(item.mimeType ?? "").split(";")[0]!.trim().toLowerCase();
}

/** A base64 data URL's data, when `url` is one whose type starts with `prefix`. */
function base64Data(url: string | null, prefix: string): string | null {
  if (url === null || !url.startsWith(`data:${prefix}`)) return null;
  const match = /^data:[^,]*;base64,(.+)$/s.exec(url);
  return match && match[1] ? match[1] : null;
}

/**
 * Media items → OpenAI content parts, as Python Bub builds them: images and videos as
 * `image_url` / `video_url` (their URL, or a data URL of the fetched bytes), audio with data as
 * `input_audio` (`format` from the MIME type: a Telegram voice note is `ogg`), and PDF documents
 * with data as `file` parts (`filename`, `file_data` data URL). Items without data or URL (too
 * large to download), remote audio and other documents are left out (the message text names
 * them). Which provider takes which part is decided later (`agent/providers/media_support.ts`).
 */
export async function mediaParts(media: readonly unknown[]): Promise<ContentPart[]> {
  const parts: ContentPart[] = [];
  for (const raw of media) {
    const item = raw as MediaLike;
    if (item.type === "image" || item.type === "video") {
      const url = await urlOf(item);
      if (url) parts.push({ type: `${item.type}_url`, [`${item.type}_url`]: { url } });
    } else if (item.type === "audio") {
      const data = base64Data(await urlOf(item), "audio/");
      if (data) {
        parts.push({
          type: "input_audio",
          input_audio: { data, format: audioFormatOf(String(item.mimeType ?? "")) },
        });
      }
    } else if (item.type === "document" && mimeOf(item) === "application/pdf") {
      const url = await urlOf(item);
      if (base64Data(url, "application/pdf") === null) continue;
      const file: Record<string, string> = { file_data: url! };
      if (typeof item.filename === "string" && item.filename) file.filename = item.filename;
      parts.push({ type: "file", file });
    }
  }
  return parts;
}

/**
 * One line per media item whose fetch brought nothing and that says why (a chat platform that
 * names no sizes finds a file over the media limit only when it downloads it), so the model is
 * told rather than left to guess.
 */
function unavailableNotes(media: readonly unknown[]): string[] {
  return media.flatMap((raw) => {
    const item = raw as MediaLike;
    if (typeof item.unavailable !== "string" || item.unavailable === "") return [];
    const name = typeof item.filename === "string" && item.filename
      ? item.filename
      : `${String(item.type)} attachment`;
    return [`[${name}: ${item.unavailable}]`];
  });
}

/** The builtin prompt of `message` (mutates `message.kind` to `"command"` for comma commands). */
export async function buildBuiltinPrompt(
  message: Envelope,
  now: Date = new Date(),
): Promise<Prompt> {
  const content = contentOf(message);
  if (content.startsWith(",")) {
    if (typeof message === "object" && message !== null) {
      try {
        (message as { kind?: string }).kind = "command";
      } catch {
        // a frozen envelope keeps its kind
      }
    }
    return content;
  }
  const context = contextStrOf(message);
  const media = inboundOf(message).media;
  const parts = media.length > 0 ? await mediaParts(media) : [];
  const body = [content, ...unavailableNotes(media)].join("\n");
  const text = context ? `${context}\n---Date: ${localIsoTime(now)}---\n${body}` : body;
  return parts.length > 0 ? [{ type: "text", text }, ...parts] : text;
}
