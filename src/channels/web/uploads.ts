/**
 * Files sent with a console message: the JSON body's `media` list, each `{name, data_url}` with
 * a base64 `data:` URL (the page reads a chosen, pasted or dropped file as one), become media
 * items of the inbound message: images, audio and video by their MIME type, anything else a
 * document (a PDF reaches the model as a file part, see `builtin/build_prompt.ts`). The body's
 * size is bounded before this runs (`console_max_body_bytes`); this checks the shape.
 *
 * @module
 */
import { BubError } from "../../kernel/errors.ts";
import { MediaItem, type MediaType } from "../../kernel/channel_message.ts";

/** At most this many files per message. */
export const MAX_UPLOADS = 10;

const DATA_URL = /^data:([a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+);base64,([A-Za-z0-9+/]*={0,2})$/i;
/** A file name of 1-255 characters without path separators or control characters. */
function usableName(name: unknown): name is string {
  if (typeof name !== "string" || name.length < 1 || name.length > 255) return false;
  for (const char of name) {
    const code = char.codePointAt(0)!;
    if (code < 0x20 || code === 0x7f || char === "/" || char === "\\") return false;
  }
  return true;
}

function bad(message: string): BubError {
  return new BubError("invalid_input", `Invalid upload: ${message}`, { status: 400 });
}

function mediaTypeOf(mime: string): MediaType {
  const top = mime.split("/")[0];
  return top === "image" || top === "audio" || top === "video" ? top : "document";
}

/** One uploaded file as the page sends it. */
export interface UploadInfo {
  /** The file name. */
  name: string;
  /** Its MIME type (from the data URL). */
  type: string;
  /** Its size in bytes. */
  bytes: number;
}

/**
 * The media items of a message body's `media` value (absent: none).
 *
 * @throws {BubError} `invalid_input` (status 400) naming the entry and what is wrong: not a list,
 *   more than {@link MAX_UPLOADS}, a missing or unusable name, or `data_url` not a base64 data URL
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseUploads } from "./uploads.ts";
 * const [item] = parseUploads([{ name: "a.txt", data_url: "data:text/plain;base64,aGk=" }]);
 * assert.equal(item?.type, "document");
 * ```
 */
export function parseUploads(value: unknown): MediaItem[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw bad('"media" must be a list of {name, data_url}');
  if (value.length > MAX_UPLOADS) {
    throw bad(`${value.length} files in one message; at most ${MAX_UPLOADS}`);
  }
  const items: MediaItem[] = [];
  value.forEach((entry: unknown, index) => {
    const where = `media[${index}]`;
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      throw bad(`${where} must be an object {name, data_url}`);
    }
    const { name, data_url: url } = entry as { name?: unknown; data_url?: unknown };
    if (!usableName(name)) {
      throw bad(`${where}.name must be a file name of 1-255 characters without / \\ or controls`);
    }
    const match = typeof url === "string" ? DATA_URL.exec(url) : null;
    if (!match || match[2]!.length % 4 !== 0) {
      throw bad(`${where}.data_url (${name}) must be a base64 data URL (data:<type>;base64,...)`);
    }
    const mime = match[1]!.toLowerCase();
    const data = match[2]!;
    items.push(
      new MediaItem({
        type: mediaTypeOf(mime),
        mimeType: mime,
        filename: name,
        url: `data:${mime};base64,${data}`,
      }),
    );
  });
  return items;
}

/** What the page shows of uploaded media items: name, MIME type and size. */
export function describeUploads(items: readonly MediaItem[]): UploadInfo[] {
  return items.map((item) => {
    const data = (item.url ?? "").replace(/^[^,]*,/, "");
    const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
    return {
      name: item.filename ?? "",
      type: item.mimeType,
      bytes: data.length / 4 * 3 - padding,
    };
  });
}
