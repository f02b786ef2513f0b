/**
 * Private: an MCP `tools/call` result as a Bub tool result. Text content is joined with newlines;
 * images, audio and resources become media records (plain data, so the tape keeps them); an
 * `isError` result becomes a {@link BubError} the model sees as the tool's error. A text past
 * `mcp_max_result_bytes` is cut, and all of it is written to a file named in the note
 * ({@link cutResult}; a stdio server's message is cut while it arrives, see `_oversized.ts`).
 *
 * @module
 */
import { writeFileSync } from "node:fs";
import { isRecord } from "../../_internal/object.ts";
import { BubError } from "../../kernel/errors.ts";
import { withCommas } from "../../_internal/text.ts";
import { sizeText } from "../../_internal/size_text.ts";

/**
 * One image, audio clip or resource returned by an MCP tool (the fields of a `MediaItem`).
 *
 * @example
 * ```ts
 * import type { McpMedia } from "@bub/core/tools";
 * const screenshot: McpMedia = { type: "image", mimeType: "image/png", url: "data:image/png;base64,AAAA" };
 * ```
 */
export interface McpMedia {
  /** `image`, `audio`, `video` or `document` (any other resource). */
  type: "image" | "audio" | "video" | "document";
  /** Its MIME type. */
  mimeType: string;
  /** A `data:` URL of inline bytes, else the resource URI. */
  url: string;
  /** The resource's name or URI, when it has one. */
  filename?: string;
  /** A text resource's text. */
  text?: string;
}

/**
 * The result of an MCP tool that returned media: the joined text plus the media.
 *
 * @example
 * ```ts
 * import type { McpToolOutput } from "@bub/core/tools";
 * const output: McpToolOutput = {
 *   text: "Took a screenshot.",
 *   media: [{ type: "image", mimeType: "image/png", url: "data:image/png;base64,AAAA" }],
 * };
 * ```
 */
export interface McpToolOutput {
  /** Text content, joined with newlines. */
  text: string;
  /** Images, audio and resources, in order. */
  media: McpMedia[];
}

function mediaType(mimeType: string): McpMedia["type"] {
  const major = mimeType.split("/")[0];
  return major === "image" || major === "audio" || major === "video" ? major : "document";
}

function resourceMedia(resource: Record<string, unknown>): McpMedia | null {
  const uri = typeof resource.uri === "string" ? resource.uri : "";
  const mimeType = typeof resource.mimeType === "string"
    ? resource.mimeType
    : typeof resource.text === "string"
    ? "text/plain"
    : "application/octet-stream";
  const media: McpMedia = { type: mediaType(mimeType), mimeType, url: uri };
  if (uri) media.filename = uri;
  if (typeof resource.blob === "string") media.url = `data:${mimeType};base64,${resource.blob}`;
  if (typeof resource.text === "string") media.text = resource.text;
  return media.url || media.text !== undefined ? media : null;
}

/** One content block: its text, or its media, or nothing for an unknown block. */
function convert(block: unknown): { text?: string; media?: McpMedia } {
  if (!isRecord(block)) return {};
  switch (block.type) {
    case "text":
      return typeof block.text === "string" ? { text: block.text } : {};
    case "image":
    case "audio": {
      if (typeof block.data !== "string") return {};
      const mimeType = typeof block.mimeType === "string" ? block.mimeType : `${block.type}/*`;
      return {
        media: {
          type: mediaType(mimeType),
          mimeType,
          url: `data:${mimeType};base64,${block.data}`,
        },
      };
    }
    case "resource_link": {
      const media = resourceMedia(block);
      if (media && typeof block.name === "string") media.filename = block.name;
      return media ? { media } : {};
    }
    case "resource": {
      const media = isRecord(block.resource) ? resourceMedia(block.resource) : null;
      return media ? { media } : {};
    }
    default:
      return {};
  }
}

/**
 * The Bub value of a `tools/call` result of tool `name`: the joined text (or, with no text, the
 * JSON of `structuredContent`), or `{ text, media }` when it carried images, audio or resources.
 *
 * @throws {BubError} (`tool`) `Tool '<name>' failed: <text>` for an `isError` result
 */
export function toolResultValue(name: string, result: unknown): string | McpToolOutput {
  const record = isRecord(result) ? result : {};
  const texts: string[] = [];
  const media: McpMedia[] = [];
  for (const block of Array.isArray(record.content) ? record.content : []) {
    const part = convert(block);
    if (part.text !== undefined) texts.push(part.text);
    if (part.media) media.push(part.media);
  }
  let text = texts.join("\n");
  if (texts.length === 0 && record.structuredContent !== undefined) {
    text = JSON.stringify(record.structuredContent);
  } else if (texts.length === 0 && record.toolResult !== undefined) {
    text = JSON.stringify(record.toolResult);
  }
  if (record.isError === true) {
    throw new BubError("tool", `Tool '${name}' failed: ${text || "(no message)"}`, {
      error: text,
    });
  }
  return media.length > 0 ? { text, media } : text;
}

/**
 * `value` with its text cut to its first `maxBytes` UTF-8 bytes plus a note, when it is longer;
 * the whole text goes to the file `spillPath()` returns (mode 0600), named in the note.
 */
export function cutResult(
  value: string | McpToolOutput,
  maxBytes: number,
  spillPath: () => string,
): string | McpToolOutput {
  const text = typeof value === "string" ? value : value.text;
  // At most 3 UTF-8 bytes per UTF-16 unit: most texts need no encoding to be measured.
  if (text.length * 3 <= maxBytes) return value;
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return value;
  let end = maxBytes;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--; // not inside a character
  let where: string;
  try {
    const path = spillPath();
    writeFileSync(path, bytes, { mode: 0o600, flag: "wx" });
    where = `the whole text is in ${path}`;
  } catch (error) {
    where = `saving it failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  const cut = `${new TextDecoder().decode(bytes.subarray(0, end))}\n...[MCP result cut: ${
    withCommas(bytes.length)
  } bytes of text, past mcp_max_result_bytes (${sizeText(maxBytes)}); ${where}]`;
  return typeof value === "string" ? cut : { ...value, text: cut };
}
