/**
 * The kept history's JSON as bytes and as text (issue 13: Bun sends a text body, its history kept
 * as one string): every prefix equals the messages' JSON joined by commas, as text and as UTF-8,
 * while messages are added between reads, with characters outside ASCII and outside the BMP.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { KeptBytes, KeptText } from "../../src/agent/providers/_chat_messages.ts";

const JSONS = [
  '{"role":"user","content":"turn 0"}',
  '{"role":"assistant","content":"é"}',
  '{"role":"tool","content":"😀 ok","tool_call_id":"call_1"}',
  '{"role":"user","content":"plain"}',
  '{"role":"assistant","content":"done — ✓"}',
];

test("every prefix of the kept JSON, as bytes and as text, is the messages' JSON joined", () => {
  const bytes = new KeptBytes();
  const text = new KeptText();
  const decoder = new TextDecoder();
  for (const [added, json] of JSONS.entries()) {
    bytes.add(json);
    text.add(json);
    assert.equal(bytes.count, added + 1);
    assert.equal(text.count, added + 1);
    // Read every prefix, shortest and longest first, after each add.
    for (const n of [1, added + 1, ...Array.from({ length: added + 1 }, (_, k) => k + 1)]) {
      const expected = JSONS.slice(0, n).join(",");
      assert.equal(text.prefix(n), expected);
      assert.equal(decoder.decode(bytes.prefix(n)), expected);
    }
  }
});

test("text added after a read is joined onto the kept text on the next read", () => {
  const text = new KeptText();
  text.add(JSONS[0]!);
  assert.equal(text.prefix(1), JSONS[0]);
  text.add(JSONS[1]!);
  text.add(JSONS[2]!);
  assert.equal(text.prefix(1), JSONS[0]);
  assert.equal(text.prefix(3), JSONS.slice(0, 3).join(","));
  assert.equal(text.prefix(2), JSONS.slice(0, 2).join(","));
});

test("a long kept text: a few messages added after a read go along, later reads see them all", () => {
  const bytes = new KeptBytes();
  const text = new KeptText();
  const jsons = Array.from(
    { length: 200 },
    (_, i) => JSONS[i % JSONS.length]!.replace("}", `,"i":${i}}`),
  );
  const decoder = new TextDecoder();
  let added = 0;
  for (const batch of [64, 1, 3, 1, 20, 2, 100, 9]) {
    for (let k = 0; k < batch; k++, added++) {
      bytes.add(jsons[added]!);
      text.add(jsons[added]!);
    }
    for (const n of [added, added - 1, 1, added >> 1, added]) {
      if (n < 1) continue;
      const expected = jsons.slice(0, n).join(",");
      assert.equal(text.prefix(n), expected);
      assert.equal(decoder.decode(bytes.prefix(n)), expected);
    }
  }
});
