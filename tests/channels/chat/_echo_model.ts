/**
 * The mock model of the chat platform tests: it answers `You said: <message>` in three chunks,
 * where `<message>` is the `message` field of the last user prompt's JSON content; a turn asking
 * to {@link WRITE_THE_EFFECT} calls `bash` instead (for the approvals tests).
 *
 * @module
 */
import { type MockReply, mockReply, type MockRequest } from "../../../src/testing/_mock_reply.ts";

/** A content part of a model request. */
export type Part = Record<string, unknown>;

interface Messages {
  messages: { role: string; content: unknown }[];
}

/** The content of the request's last user message: its parts, or its text. */
export function userParts(request: MockRequest): Part[] | string {
  const messages = (request.body as Messages).messages;
  return messages.findLast((message) => message.role === "user")!.content as Part[] | string;
}

/** The text of {@link userParts}: the text itself, or its text part. */
export function userText(parts: Part[] | string): string {
  return typeof parts === "string"
    ? parts
    : String(parts.find((part) => part.type === "text")?.text);
}

/** Answers `You said: <message>` in three chunks. */
export function echoModel(request: MockRequest): MockReply {
  const messages = (request.body as Messages).messages;
  const user = messages.findLast((message) => message.role === "user");
  const prompt = typeof user?.content === "string" ? user.content : JSON.stringify(user?.content);
  const said = /\\?"message\\?":\s*\\?"([^"\\]*)/.exec(prompt)?.[1] ?? "";
  return mockReply.text(`You said: ${said}`, { chunks: 3 });
}

/** The approvals tests' message: its turn calls `bash` appending to the effect file. */
export const WRITE_THE_EFFECT = "write the effect";

/**
 * {@link echoModel}, except in a conversation containing {@link WRITE_THE_EFFECT}: there it calls
 * `bash` appending `ran` to `effectFile()` (a call an `approvals:` rule holds), then answers
 * "Effect written.".
 */
export function echoOrEffectModel(effectFile: () => string): (request: MockRequest) => MockReply {
  return (request) => {
    const messages = (request.body as Messages).messages;
    if (!JSON.stringify(messages).includes(WRITE_THE_EFFECT)) return echoModel(request);
    if (messages.at(-1)?.role === "tool") return mockReply.text("Effect written.");
    return mockReply.toolCall("bash", { command: `echo ran >> ${effectFile()}` });
  };
}
