/**
 * The mock model of the chat platform tests: it answers `You said: <message>` in three chunks,
 * where `<message>` is the `message` field of the last user prompt's JSON content.
 *
 * @module
 */
import { type MockReply, mockReply, type MockRequest } from "../../../src/testing/_mock_reply.ts";

/** Answers `You said: <message>` in three chunks. */
export function echoModel(request: MockRequest): MockReply {
  const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
  const user = messages.findLast((message) => message.role === "user");
  const prompt = typeof user?.content === "string" ? user.content : JSON.stringify(user?.content);
  const said = /\\?"message\\?":\s*\\?"([^"\\]*)/.exec(prompt)?.[1] ?? "";
  return mockReply.text(`You said: ${said}`, { chunks: 3 });
}
