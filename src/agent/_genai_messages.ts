/**
 * Private: chat messages (OpenAI chat format) as the GenAI semantic conventions' JSON message
 * attributes (`gen_ai.system_instructions`, `gen_ai.input.messages`, `gen_ai.output.messages`).
 * Media parts keep only their type: no base64 data in span attributes.
 *
 * @module
 */
import type { ChatContentPart, ChatMessage } from "./model_client.ts";

type Part = Record<string, unknown>;

function contentParts(content: string | readonly ChatContentPart[] | null | undefined): Part[] {
  if (content === null || content === undefined) return [];
  if (typeof content === "string") return content ? [{ type: "text", content }] : [];
  return content.map((part) =>
    part.type === "text" ? { type: "text", content: String(part.text ?? "") } : { type: part.type }
  );
}

function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The system instructions (JSON, or null without a system message) and the other messages (JSON). */
export function genAiInput(
  messages: readonly ChatMessage[],
): { system: string | null; input: string } {
  const system: Part[] = [];
  const input: Array<{ role: string; parts: Part[] }> = [];
  for (const message of messages) {
    if (message.role === "system" || message.role === "developer") {
      system.push(...contentParts(message.content));
    } else if (message.role === "tool") {
      input.push({
        role: "tool",
        parts: [{
          type: "tool_call_response",
          id: message.tool_call_id,
          response: typeof message.content === "string"
            ? message.content
            : contentParts(message.content),
        }],
      });
    } else if (message.role === "assistant") {
      const parts = contentParts(message.content);
      for (const call of message.tool_calls ?? []) {
        parts.push({
          type: "tool_call",
          id: call.id,
          name: call.function.name,
          arguments: parsedArguments(call.function.arguments),
        });
      }
      input.push({ role: "assistant", parts });
    } else {
      input.push({ role: message.role, parts: contentParts(message.content) });
    }
  }
  return {
    system: system.length > 0 ? JSON.stringify(system) : null,
    input: JSON.stringify(input),
  };
}

/** The answer as `gen_ai.output.messages` (JSON). */
export function genAiOutput(
  text: string,
  calls: readonly { id: string; name: string; arguments: string }[],
  finishReason: string | null,
): string {
  const parts: Part[] = text ? [{ type: "text", content: text }] : [];
  for (const call of calls) {
    parts.push({
      type: "tool_call",
      id: call.id,
      name: call.name,
      arguments: parsedArguments(call.arguments),
    });
  }
  return JSON.stringify([{ role: "assistant", parts, finish_reason: finishReason ?? "stop" }]);
}
