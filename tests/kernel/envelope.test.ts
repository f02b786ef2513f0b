import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { contentOf, fieldOf, normalizeEnvelope, unpackBatch } from "../../src/kernel/envelope.ts";

describe("envelope helpers", () => {
  test("fieldOf reads mappings by key and objects by attribute, returning the default only when the key or attribute is absent", () => {
    assert.equal(fieldOf({ a: 1 }, "a", "d"), 1);
    assert.equal(fieldOf({ a: null }, "a", "d"), null);
    assert.equal(fieldOf({}, "a", "d"), "d");
    assert.equal(fieldOf(new Map([["a", 0]]), "a", "d"), 0);
    assert.equal(fieldOf(new Map([["a", null]]), "a", "d"), null);
    assert.equal(fieldOf(new Map(), "a", "d"), "d");
    class Message {
      content = "body";
      empty: string | null = null;
      get computed(): string {
        return "getter";
      }
    }
    assert.equal(fieldOf(new Message(), "content", "d"), "body");
    assert.equal(fieldOf(new Message(), "empty", "d"), null);
    assert.equal(fieldOf(new Message(), "computed", "d"), "getter");
    assert.equal(fieldOf(new Message(), "missing", "d"), "d");
    assert.equal(fieldOf(null, "a", "d"), "d");
    assert.equal(fieldOf("text", "length", "d"), "d");
    assert.equal(fieldOf({}, "a"), null, "the default default is null");
  });

  test("contentOf stringifies the content field and returns '' when it is absent or null", () => {
    assert.equal(contentOf({ content: "hi" }), "hi");
    assert.equal(contentOf({ content: 42 }), "42");
    assert.equal(contentOf({ content: null }), "");
    assert.equal(contentOf({}), "");
    assert.equal(contentOf(new Map([["content", "m"]])), "m");
  });

  test("unpackBatch(null) is [], a list is copied, any other value becomes a one-item list", () => {
    assert.deepEqual(unpackBatch(null), []);
    assert.deepEqual(unpackBatch(undefined), []);
    const list = [{ a: 1 }, { b: 2 }];
    const copy = unpackBatch(list);
    assert.deepEqual(copy, list);
    assert.notEqual(copy, list);
    const one = { content: "x" };
    assert.deepEqual(unpackBatch(one), [one]);
    assert.deepEqual(unpackBatch(""), [""]);
    function* gen() {
      yield 1;
    }
    const iterator = gen();
    assert.deepEqual(unpackBatch(iterator), [iterator], "iterators are not expanded");
  });

  test("normalizeEnvelope copies mappings, copies object fields, and wraps other values as { content: String(value) }", () => {
    const mapping = { content: "hi", channel: "c" };
    const copy = normalizeEnvelope(mapping);
    assert.deepEqual(copy, mapping);
    assert.notEqual(copy, mapping);
    assert.deepEqual(normalizeEnvelope(new Map([["content", "m"]])), { content: "m" });
    class Message {
      content = "body";
      chatId = "x";
    }
    const fromObject = normalizeEnvelope(new Message());
    assert.deepEqual(fromObject, { content: "body", chatId: "x" });
    assert.equal(Object.getPrototypeOf(fromObject), Object.prototype);
    assert.deepEqual(normalizeEnvelope("plain text"), { content: "plain text" });
    assert.deepEqual(normalizeEnvelope(7), { content: "7" });
  });
});
