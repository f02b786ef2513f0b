import { audioMimeOf } from "../../_internal/audio_mime.ts";

/**
 * Provider-specific message adaptation (§4.9): for `gemini` and `vertexai`, video parts and
 * base64 audio parts become `file` parts; everything else passes unchanged.
 */
export function adaptMessagesForProvider(
  provider: string | null,
  messages: readonly Record<string, unknown>[],
): Record<string, unknown>[] {
  // `slice`: a copy of the references without the iteration of a spread.
  if (provider !== "gemini" && provider !== "vertexai") return messages.slice();
  return messages.map((message) => {
    const content = message.content;
    if (!Array.isArray(content)) return message;
    return { ...message, content: content.map(adaptPart) };
  });
}

function adaptPart(part: unknown): unknown {
  if (typeof part !== "object" || part === null) return part;
  const record = part as Record<string, unknown>;
  if (record.type === "video_url") {
    const url = (record.video_url as { url?: unknown } | undefined)?.url;
    if (typeof url === "string" && url) return { type: "file", file: { file_data: url } };
  }
  if (record.type === "input_audio") {
    const audio = record.input_audio as { data?: unknown; format?: unknown } | undefined;
    if (
      typeof audio?.data === "string" && audio.data && typeof audio.format === "string" &&
      audio.format
    ) {
      return {
        type: "file",
        file: { file_data: `data:${audioMimeOf(audio.format)};base64,${audio.data}` },
      };
    }
  }
  return part;
}
