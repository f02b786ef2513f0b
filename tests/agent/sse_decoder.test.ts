/** The SSE decoder of the direct chat-completions client: line ends, splits, fields. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { SseDecoder } from "../../src/agent/providers/_chat_read.ts";

function decode(text: string, pieceSize: number): string[] {
  const bytes = new TextEncoder().encode(text);
  const decoder = new SseDecoder();
  const out: string[] = [];
  for (let at = 0; at < bytes.length; at += pieceSize) {
    out.push(...decoder.push(bytes.slice(at, at + pieceSize)));
  }
  return [...out, ...decoder.end()];
}

describe("SseDecoder", () => {
  const text = ': comment\nevent: x\ndata: {"a":"✓"}\n\ndata:no-space\ndata: second line\n\n' +
    "id: 7\nretry: 10\ndata\n\ndata: [DONE]\n\ndata: unterminated";
  const expected = ['{"a":"✓"}', "no-space\nsecond line", "", "[DONE]", "unterminated"];

  for (const [name, ending] of [["LF", "\n"], ["CRLF", "\r\n"], ["CR", "\r"]] as const) {
    for (const size of [1, 2, 3, 7, 1000]) {
      test(`${name} line ends in ${size}-byte pieces give the same events`, () => {
        assert.deepEqual(decode(text.replaceAll("\n", ending), size), expected);
      });
    }
  }

  test("an event without data is not dispatched", () => {
    assert.deepEqual(decode("event: ping\n\n: keep-alive\n\n", 4), []);
  });
});
