/**
 * `inboundOf`: the typed view of any envelope, read once; `sessionKey` / `defaultSessionId`: the
 * one session-id default; `writeSessionId`: one writer with the two spec'd modes (processInbound
 * writes only when absent, admission writes back).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ChannelMessage } from "../../src/kernel/channel_message.ts";
import { defaultSessionId, sessionKey, writeSessionId } from "../../src/kernel/envelope.ts";
import { inboundOf } from "../../src/kernel/inbound.ts";

describe("inboundOf", () => {
  test("reads camelCase and snake_case fields of a plain object into typed fields and keeps the raw envelope", () => {
    const raw = {
      session_id: 12,
      channel: "telegram",
      chat_id: 7,
      content: "hi",
      context: { thread_id: "t" },
      media: [{ type: "image" }],
      kind: "command",
      output_channel: "null",
      is_active: true,
      sender_id: 99,
      extra: "kept",
    };
    const inbound = inboundOf(raw);
    assert.deepEqual({ ...inbound, raw: undefined }, {
      sessionId: "12",
      channel: "telegram",
      chatId: "7",
      content: "hi",
      context: { thread_id: "t" },
      media: [{ type: "image" }],
      kind: "command",
      outputChannel: "null",
      isActive: true,
      sender: "99",
      raw: undefined,
    });
    assert.equal(inbound.raw, raw, "the envelope itself, for plugins' own fields");
  });

  test("defaults: absent or null fields, a Map, a ChannelMessage, a primitive", () => {
    assert.deepEqual({ ...inboundOf({ content: null, context: "x", media: "y" }), raw: null }, {
      sessionId: null,
      channel: null,
      chatId: null,
      content: "",
      context: {},
      media: [],
      kind: "normal",
      outputChannel: null,
      isActive: false,
      sender: null,
      raw: null,
    });
    const map = inboundOf(new Map<string, unknown>([["chatId", "m"], ["isActive", "yes"]]));
    assert.equal(map.chatId, "m");
    assert.equal(map.isActive, false, "only true is active");
    const message = new ChannelMessage({ sessionId: "s", channel: "cli", content: "c" });
    const typed = inboundOf(message);
    assert.equal(typed.chatId, "default");
    assert.equal(typed.outputChannel, "cli");
    assert.equal(typed.context, message.context);
    assert.equal(inboundOf("plain text").content, "");
  });
});

describe("the session-id default", () => {
  test("sessionKey fills missing parts with 'default'; defaultSessionId prefers the message's own non-null id", () => {
    assert.equal(sessionKey("cli", "local"), "cli:local");
    assert.equal(sessionKey(null, undefined), "default:default");
    assert.equal(defaultSessionId({ session_id: "", channel: "c" }), "", "present, even empty");
    assert.equal(defaultSessionId({ sessionId: null, channel: "c", chat_id: 3 }), "c:3");
  });
});

describe("writeSessionId", () => {
  test("if_absent writes only into plain objects and Maps without a session key", () => {
    const plain: Record<string, unknown> = { channel: "c" };
    writeSessionId(plain, "s1", "if_absent");
    assert.equal(plain.sessionId, "s1");
    const snake: Record<string, unknown> = { session_id: null };
    writeSessionId(snake, "s2", "if_absent");
    assert.deepEqual(snake, { session_id: null });
    const map = new Map<string, unknown>();
    writeSessionId(map, "s3", "if_absent");
    assert.equal(map.get("sessionId"), "s3");
    const message = new ChannelMessage({ sessionId: "own", channel: "cli", content: "" });
    writeSessionId(message, "s4", "if_absent");
    assert.equal(message.sessionId, "own", "attribute-style envelopes are not modified");
  });

  test("overwrite writes back onto any object, mirrors session_id when present, and leaves frozen ones", () => {
    const message = new ChannelMessage({ sessionId: "raw", channel: "cli", content: "" });
    writeSessionId(message, "resolved", "overwrite");
    assert.equal(message.sessionId, "resolved");
    const snake: Record<string, unknown> = { session_id: "raw" };
    writeSessionId(snake, "resolved", "overwrite");
    assert.deepEqual(snake, { session_id: "resolved", sessionId: "resolved" });
    const map = new Map<string, unknown>([["session_id", "raw"]]);
    writeSessionId(map, "resolved", "overwrite");
    assert.deepEqual([...map], [["session_id", "resolved"], ["sessionId", "resolved"]]);
    const frozen = Object.freeze({ sessionId: "raw" });
    assert.doesNotThrow(() => writeSessionId(frozen, "resolved", "overwrite"));
    assert.equal(frozen.sessionId, "raw");
    assert.doesNotThrow(() => writeSessionId(Object.freeze({}), "s", "if_absent"));
  });
});
