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
  getUrl?: () => Promise<string | null>;
  url?: unknown;
}

async function urlOf(item: MediaLike): Promise<string | null> {
  if (typeof item.getUrl === "function") return await item.getUrl();
  return typeof item.url === "string" && item.url ? item.url : null;
}

/** Media items → OpenAI content parts (images, videos, data-URL audio; documents ignored). */
export async function mediaParts(media: readonly unknown[]): Promise<ContentPart[]> {
  const parts: ContentPart[] = [];
  for (const raw of media) {
    const item = raw as MediaLike;
    if (item.type === "image" || item.type === "video") {
      const url = await urlOf(item);
      if (url) parts.push({ type: `${item.type}_url`, [`${item.type}_url`]: { url } });
    } else if (item.type === "audio") {
      const url = await urlOf(item);
      const match = url ? /^data:audio\/[^;,]*(?:;[^,]*)?;base64,(.+)$/s.exec(url) : null;
      if (match && match[1]) {
        parts.push({
          type: "input_audio",
          input_audio: { data: match[1], format: audioFormatOf(String(item.mimeType ?? "")) },
        });
      }
    }
  }
  return parts;
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
  const text = context ? `${context}\n---Date: ${localIsoTime(now)}---\n${content}` : content;
  const media = inboundOf(message).media;
  const parts = media.length > 0 ? await mediaParts(media) : [];
  return parts.length > 0 ? [{ type: "text", text }, ...parts] : text;
}
