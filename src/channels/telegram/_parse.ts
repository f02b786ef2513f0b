/**
 * Parsing a Telegram message into Bub's content, metadata and media (spec/builtin.md §10.5):
 * placeholders for non-text messages, sender metadata, links of `text_link`/`url` entities, and
 * lazily downloaded media.
 *
 * @module
 */
import type { Message, MessageEntity } from "grammy/types";
import { MediaItem, type MediaType } from "../../kernel/channel_message.ts";

/** Downloads a file by id; null when it is too large or unavailable. */
/** The Telegram file behind a media item this module built (for instances that rebuild it). */
export interface TelegramFileRef {
  readonly fileId: string;
  readonly fileSize: number | null;
}

const FILES = new WeakMap<MediaItem, TelegramFileRef>();

/** The Telegram file of `item`, when {@link parseMessage} built it; else null. */
export function telegramFileOf(item: unknown): TelegramFileRef | null {
  return typeof item === "object" && item !== null ? FILES.get(item as MediaItem) ?? null : null;
}

export type FileDownloader = (
  fileId: string,
  fileSize: number | null,
) => Promise<Uint8Array | null>;

/** The kinds of message Bub understands; anything else is `unknown`. */
export type TelegramMessageType =
  | "text"
  | "photo"
  | "audio"
  | "sticker"
  | "video"
  | "voice"
  | "document"
  | "video_note"
  | "unknown";

/** A parsed message: content text, JSON-able metadata (nulls dropped) and media items. */
export interface ParsedTelegramMessage {
  content: string;
  metadata: Record<string, unknown>;
  media: MediaItem[];
}

/** What the media part of the metadata looks like before the fetcher is split off. */
interface MediaInfo {
  info: Record<string, unknown>;
  fileId: string;
  fileSize: number | null;
  mimeType: string;
  filename: string | null;
}

const MEDIA_TYPE: Record<string, MediaType> = {
  photo: "image",
  sticker: "image",
  audio: "audio",
  voice: "audio",
  video: "video",
  video_note: "video",
  document: "document",
};

const MEDIA_KEYS: ReadonlyArray<Exclude<TelegramMessageType, "text" | "unknown">> = [
  "photo",
  "audio",
  "sticker",
  "video",
  "voice",
  "document",
  "video_note",
];

/** Drops null and undefined values. */
function compact(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(record).filter(([, value]) => value !== null && value !== undefined),
  );
}

function num(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function str(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

/** The message type: the first present of text, photo, audio, sticker, video, voice, document, video note. */
export function messageType(message: Message): TelegramMessageType {
  if (str(message.text)) return "text";
  for (const key of MEDIA_KEYS) {
    const value = (message as unknown as Record<string, unknown>)[key];
    if (key === "photo" ? Array.isArray(value) && value.length > 0 : value) return key;
  }
  return "unknown";
}

/**
 * Unique URLs of `text_link` and `url` entities of the text (or, without text entities, of the
 * caption); null when there are none.
 */
export function extractLinks(message: Message): string[] | null {
  let entities: readonly MessageEntity[] | undefined = message.entities;
  let source = message.text ?? "";
  if (!entities?.length) {
    entities = message.caption_entities;
    source = message.caption ?? "";
  }
  if (!Array.isArray(entities) || entities.length === 0) return null;
  const links: string[] = [];
  for (const entity of entities) {
    let url: string | null = null;
    if (entity?.type === "text_link") url = str(entity.url);
    else if (entity?.type === "url") {
      url = source.slice(entity.offset ?? 0, (entity.offset ?? 0) + (entity.length ?? 0)).trim() ||
        null;
    }
    if (url && !links.includes(url)) links.push(url);
  }
  return links.length ? links : null;
}

function withCaption(text: string, message: Message): string {
  return message.caption ? `${text} Caption: ${message.caption}` : text;
}

function mediaInfo(
  file: Record<string, unknown>,
  mimeType: string,
  info: Record<string, unknown>,
): MediaInfo | null {
  const fileId = str(file.file_id);
  if (!fileId) return null;
  const filename = str(info.file_name);
  return {
    info: compact({ file_id: fileId, ...info, mime_type: mimeType }),
    fileId,
    fileSize: num(file.file_size),
    mimeType,
    filename,
  };
}

/** The placeholder content and the media of a non-text message. */
function parseMedia(message: Message, type: TelegramMessageType): [string, MediaInfo | null] {
  const m = message as unknown as Record<string, Record<string, unknown> | undefined>;
  switch (type) {
    case "photo": {
      const largest = (message.photo?.at(-1) ?? {}) as unknown as Record<string, unknown>;
      const { file_size, width, height } = largest;
      return [
        withCaption("[Photo message]", message),
        mediaInfo(largest, "image/jpeg", { file_size, width, height }),
      ];
    }
    case "audio": {
      const audio = m.audio ?? {};
      const title = str(audio.title) || "Unknown";
      const performer = str(audio.performer) ?? "";
      const duration = num(audio.duration) ?? 0;
      const text = performer
        ? `[Audio: ${performer} - ${title} (${duration}s)]`
        : `[Audio: ${title} (${duration}s)]`;
      const { file_size, title: rawTitle, performer: rawPerformer } = audio;
      const info = {
        file_size,
        duration: audio.duration,
        title: rawTitle,
        performer: rawPerformer,
      };
      return [text, mediaInfo(audio, str(audio.mime_type) || "audio/mpeg", info)];
    }
    case "sticker": {
      const sticker = m.sticker ?? {};
      const emoji = str(sticker.emoji) ?? "";
      const setName = str(sticker.set_name) ?? "";
      const mime = sticker.is_animated ? "video/webm" : "image/webp";
      const { width, height, is_animated } = sticker;
      const info = { width, height, emoji: sticker.emoji, set_name: sticker.set_name, is_animated };
      const text = emoji ? `[Sticker: ${emoji} from ${setName}]` : `[Sticker from ${setName}]`;
      return [text, mediaInfo(sticker, mime, info)];
    }
    case "video": {
      const video = m.video ?? {};
      const text = withCaption(`[Video: ${num(video.duration) ?? 0}s]`, message);
      const { file_size, width, height, duration } = video;
      return [
        text,
        mediaInfo(video, str(video.mime_type) || "video/mp4", {
          file_size,
          width,
          height,
          duration,
        }),
      ];
    }
    case "voice": {
      const voice = m.voice ?? {};
      const text = `[Voice message: ${num(voice.duration) ?? 0}s]`;
      return [
        text,
        mediaInfo(voice, str(voice.mime_type) || "audio/ogg", { duration: voice.duration }),
      ];
    }
    case "document": {
      const doc = m.document ?? {};
      const mime = str(doc.mime_type) || "application/octet-stream";
      const text = withCaption(`[Document: ${str(doc.file_name) || "unknown"} (${mime})]`, message);
      return [text, mediaInfo(doc, mime, { file_name: doc.file_name, file_size: doc.file_size })];
    }
    case "video_note": {
      const note = m.video_note ?? {};
      const text = `[Video note: ${num(note.duration) ?? 0}s]`;
      return [
        text,
        mediaInfo(note, str(note.mime_type) || "video/mp4", { duration: note.duration }),
      ];
    }
    default:
      return [`[Unsupported message type: ${type}]`, null];
  }
}

/** The sender's full name: first and last name joined by a space. */
function fullName(first: unknown, last: unknown): string {
  return [str(first), str(last)].filter(Boolean).join(" ");
}

/**
 * Parses one message: content (text or placeholder), metadata `{message_id, type, username,
 * full_name, sender_id, sender_is_bot, date, links?, media?}` with nulls dropped, and its media
 * item (downloaded lazily through `download`).
 */
export function parseMessage(message: Message, download: FileDownloader): ParsedTelegramMessage {
  const type = messageType(message);
  const [content, media] = type === "text" ? [message.text ?? "", null] : parseMedia(message, type);
  const from = message.from;
  const metadata = compact({
    message_id: message.message_id,
    type,
    username: from ? from.username : "",
    full_name: from ? fullName(from.first_name, from.last_name) : "",
    sender_id: from ? String(from.id) : "",
    sender_is_bot: from ? from.is_bot : null,
    date: num(message.date),
    links: extractLinks(message),
    media: media?.info ?? null,
  });
  const items: MediaItem[] = [];
  if (media) {
    const item = new MediaItem({
      type: MEDIA_TYPE[type] ?? "document",
      mimeType: media.mimeType,
      filename: media.filename,
      dataFetcher: () => download(media.fileId, media.fileSize),
    });
    FILES.set(item, { fileId: media.fileId, fileSize: media.fileSize });
    items.push(item);
  }
  return { content, metadata, media: items };
}

/**
 * The message replied to, parsed the same way as `{message, ...metadata}` plus its media; null
 * when there is none or it has no sender.
 */
export function parseReply(
  message: Message,
  download: FileDownloader,
): { metadata: Record<string, unknown>; media: MediaItem[] } | null {
  const reply = message.reply_to_message;
  if (!reply || typeof reply !== "object" || !reply.from) return null;
  const parsed = parseMessage(reply as Message, download);
  return { metadata: { message: parsed.content, ...parsed.metadata }, media: parsed.media };
}
