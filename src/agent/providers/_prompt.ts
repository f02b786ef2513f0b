/**
 * OpenAI chat-format messages and tools → `LanguageModelV4` prompt and tools.
 *
 * @module
 */
import type {
  LanguageModelV4FilePart,
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4TextPart,
  LanguageModelV4ToolCallPart,
} from "@ai-sdk/provider";
import type { ChatContentPart, ChatMessage, ChatTool } from "../model_client.ts";
import type { ProviderProtocol } from "./provider_presets.ts";
import { mediaPartInfo, mediaRefusal } from "./media_support.ts";
import { audioMimeOf } from "../../_internal/audio_mime.ts";
import { rawPartMarker } from "./_request_body.ts";

/** The text of a message content: a string, or the `text` parts joined with newlines. */
export function contentText(content: string | ChatContentPart[] | null | undefined): string {
  if (content == null) return "";
  if (typeof content === "string") return content;
  return content
    .map((part) => (part as { type: string; text?: unknown }))
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text as string)
    .join("\n");
}

function urlFilePart(url: string, fallbackMediaType: string): LanguageModelV4FilePart {
  const match = /^data:([^;,]+)?(;base64)?,(.*)$/s.exec(url);
  if (match) {
    const mediaType = match[1] ?? fallbackMediaType;
    const data = match[2] ? match[3]! : btoa(decodeURIComponent(match[3]!));
    return { type: "file", mediaType, data: { type: "data", data } };
  }
  return { type: "file", mediaType: fallbackMediaType, data: { type: "url", url: new URL(url) } };
}

function convertPart(part: ChatContentPart): LanguageModelV4TextPart | LanguageModelV4FilePart {
  switch (part.type) {
    case "text":
      return { type: "text", text: String(part.text ?? "") };
    case "image_url": {
      const image = part.image_url as { url?: unknown } | string | undefined;
      const url = typeof image === "string" ? image : String(image?.url ?? "");
      return urlFilePart(url, "image");
    }
    case "input_audio": {
      const audio = part.input_audio as { data?: unknown; format?: unknown } | undefined;
      return {
        type: "file",
        mediaType: audioMimeOf(String(audio?.format ?? "wav")),
        data: { type: "data", data: String(audio?.data ?? "") },
      };
    }
    case "video_url": {
      const video = part.video_url as { url?: unknown } | string | undefined;
      const url = typeof video === "string" ? video : String(video?.url ?? "");
      return urlFilePart(url, "video");
    }
    case "file": {
      const file = part.file as { file_data?: unknown; filename?: unknown } | undefined;
      const converted = urlFilePart(String(file?.file_data ?? ""), "application/octet-stream");
      if (typeof file?.filename === "string") converted.filename = file.filename;
      return converted;
    }
    default:
      throw new TypeError(
        `Cannot convert message content: unsupported part type ${JSON.stringify(part.type)}`,
      );
  }
}

/**
 * How user media parts are converted for one protocol: `raw` collects the parts the
 * chat-completions protocols forward unchanged (each stands in the prompt as a marker text part
 * that `withRawParts` swaps back in the request body); for other protocols a part the table
 * refuses becomes its note (see `media_support.ts`).
 */
interface MediaRoute {
  protocol: ProviderProtocol;
  raw: ChatContentPart[];
}

function routePart(
  part: ChatContentPart,
  route: MediaRoute | null,
): LanguageModelV4TextPart | LanguageModelV4FilePart {
  if (route === null || part.type === "text") return convertPart(part);
  if (route.protocol === "openai-chat" || route.protocol === "openai-compatible") {
    route.raw.push(part);
    return { type: "text", text: rawPartMarker(route.raw.length - 1) };
  }
  const info = mediaPartInfo(part);
  const note = info === null ? null : mediaRefusal(route.protocol, info);
  if (note !== null) return { type: "text", text: note };
  return convertPart(part);
}

function userContent(
  content: string | ChatContentPart[] | null | undefined,
  route: MediaRoute | null,
): Array<LanguageModelV4TextPart | LanguageModelV4FilePart> {
  if (content == null) return [{ type: "text", text: "" }];
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.map((part) => routePart(part, route));
}

/** A tool call's arguments text parsed as JSON; `{}` when blank, the text itself when not JSON. */
export function parseArguments(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Converts OpenAI chat-format messages to a `LanguageModelV4Prompt`. Tool messages get the tool
 * name of the assistant call they answer (by `tool_call_id`).
 *
 * With a `protocol`, user media parts go as the protocol takes them (`media_support.ts`): for the
 * chat-completions protocols each non-text part is pushed to `raw` and stands in the prompt as a
 * marker text part (the request body gets the part back unchanged, see `withRawParts`); for the
 * others a part the protocol cannot carry becomes its text note.
 */
export function toV4Prompt(
  messages: readonly ChatMessage[],
  protocol: ProviderProtocol | null = null,
  raw: ChatContentPart[] = [],
): LanguageModelV4Prompt {
  const route = protocol === null ? null : { protocol, raw };
  const toolNames = new Map<string, string>();
  const prompt: LanguageModelV4Message[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "system":
      case "developer":
        prompt.push({ role: "system", content: contentText(message.content) });
        break;
      case "user":
        prompt.push({ role: "user", content: userContent(message.content, route) });
        break;
      case "assistant": {
        const content: Array<
          LanguageModelV4TextPart | LanguageModelV4FilePart | LanguageModelV4ToolCallPart | {
            type: "reasoning";
            text: string;
          }
        > = [];
        if (message.reasoning_content) {
          content.push({ type: "reasoning", text: message.reasoning_content });
        }
        const text = contentText(message.content);
        if (text !== "") content.push({ type: "text", text });
        for (const call of message.tool_calls ?? []) {
          toolNames.set(call.id, call.function.name);
          content.push({
            type: "tool-call",
            toolCallId: call.id,
            toolName: call.function.name,
            input: parseArguments(call.function.arguments ?? ""),
          });
        }
        prompt.push({ role: "assistant", content });
        break;
      }
      case "tool":
        prompt.push({
          role: "tool",
          content: [{
            type: "tool-result",
            toolCallId: message.tool_call_id,
            toolName: toolNames.get(message.tool_call_id) ?? message.name ?? "",
            output: { type: "text", value: contentText(message.content) },
          }],
        });
        break;
      default:
        throw new TypeError(
          `Cannot convert message: unsupported role ${
            JSON.stringify((message as { role?: unknown }).role)
          }`,
        );
    }
  }
  return prompt;
}

/** Converts OpenAI function tool schemas to `LanguageModelV4FunctionTool`s. */
export function toV4Tools(
  tools: readonly ChatTool[] | null | undefined,
): LanguageModelV4FunctionTool[] | undefined {
  if (!tools || tools.length === 0) return undefined;
  return tools.map((tool) => {
    const out: LanguageModelV4FunctionTool = {
      type: "function",
      name: tool.function.name,
      inputSchema: (tool.function.parameters ?? { type: "object", properties: {} }) as never,
    };
    if (tool.function.description !== undefined) out.description = tool.function.description;
    return out;
  });
}
