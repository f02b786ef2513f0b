/**
 * An ACP prompt (a list of content blocks) as one Bub inbound message: text as it is, a resource
 * link as a Markdown link the model can open with its tools, an embedded text resource inline in a
 * fenced block named by its URI; images, audio and embedded binary resources become the message's
 * media (data URLs), as a channel's photos and voice notes do.
 *
 * @module
 */
import { BubError } from "../../kernel/errors.ts";

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" ? value as Record<string, unknown> : {};
}

/** One media item of an inbound message (what channels attach: photos, voice notes, files). */
export interface PromptMedia {
  /** `image`, `audio`, `video` or `document`. */
  type: string;
  /** The MIME type. */
  mimeType: string;
  /** A data URL of the bytes. */
  url: string;
}

function mediaType(mime: string): string {
  const top = mime.split("/")[0];
  return top === "image" || top === "audio" || top === "video" ? top : "document";
}

/** The text and media of `blocks`. */
export function promptOf(blocks: readonly unknown[]): { text: string; media: PromptMedia[] } {
  const parts: string[] = [];
  const media: PromptMedia[] = [];
  for (const item of blocks) {
    const block = record(item);
    switch (block.type) {
      case "text":
        parts.push(String(block.text ?? ""));
        break;
      case "resource_link":
        parts.push(`[${String(block.name ?? block.uri ?? "")}](${String(block.uri ?? "")})`);
        break;
      case "resource": {
        const resource = record(block.resource);
        const uri = String(resource.uri ?? "");
        if (typeof resource.text === "string") {
          parts.push(`Context from ${uri}:\n\`\`\`\n${resource.text}\n\`\`\``);
        } else if (typeof resource.blob === "string") {
          const mimeType = String(resource.mimeType ?? "application/octet-stream");
          const url = `data:${mimeType};base64,${resource.blob}`;
          media.push({ type: mediaType(mimeType), mimeType, url });
          parts.push(`[attached ${uri}]`);
        }
        break;
      }
      case "image":
      case "audio": {
        if (typeof block.data !== "string" || typeof block.mimeType !== "string") {
          throw new BubError("invalid_input", `An ${block.type} block needs data and mimeType`);
        }
        const url = `data:${block.mimeType};base64,${block.data}`;
        media.push({ type: block.type, mimeType: block.mimeType, url });
        break;
      }
      default:
        throw new BubError(
          "invalid_input",
          `Unknown prompt content block type ${JSON.stringify(block.type)}`,
        );
    }
  }
  return { text: parts.filter((part) => part !== "").join("\n\n"), media };
}
