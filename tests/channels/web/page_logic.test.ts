/**
 * The console page's pure logic, on every runtime: the Markdown subset (links only to http(s),
 * HTML stays text, an unclosed fence renders as code while it streams) and the tape timeline
 * (handoffs and anchors as marks with summaries, one card per tool call id paired with its
 * result, spill handles, a fork and a merge mark per agent turn, `sidecar.merge` marks) and
 * the usage line of a turn; the token taken from the printed URL (which is left clean) and the
 * event stream's parser.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parseInline, parseMarkdown, safeHref } from "../../../src/channels/web/page/markdown.ts";
import { cardKey, usageLine } from "../../../src/channels/web/page/chat.ts";
import {
  errorLines,
  isErrorRecord,
  readableRepr,
} from "../../../src/channels/web/page/error_text.ts";
import { localTime } from "../../../src/channels/web/page/local_time.ts";
import { chatHistory } from "../../../src/channels/web/page/history.ts";
import { jsonSafe } from "../../../src/channels/web/wire_events.ts";
import { spillHandle, timeline, type WireEntry } from "../../../src/channels/web/page/timeline.ts";
import { takeToken } from "../../../src/channels/web/page/auth.ts";
import { parseSse } from "../../../src/channels/web/page/event_stream.ts";

const HTML = `<script>alert(1)</script><img src=x onerror="alert(2)">`;

describe("console page: Markdown subset", () => {
  test("paragraphs, headings, lists, fenced code, inline code, emphasis and strong", () => {
    const blocks = parseMarkdown(
      "# Title\n\nSome **bold** and *em* and _em2_ and `x<y>`.\nsame paragraph\n\n" +
        "- a\n- b\n\n1. one\n2) two\n\n```ts\nconst a = `b`;\n<b>not bold</b>\n```\nafter",
    );
    assert.deepEqual(blocks.map((b) => b.type), [
      "heading",
      "paragraph",
      "list",
      "list",
      "code",
      "paragraph",
    ]);
    assert.deepEqual(blocks[1], {
      type: "paragraph",
      children: [
        { type: "text", text: "Some " },
        { type: "strong", children: [{ type: "text", text: "bold" }] },
        { type: "text", text: " and " },
        { type: "em", children: [{ type: "text", text: "em" }] },
        { type: "text", text: " and " },
        { type: "em", children: [{ type: "text", text: "em2" }] },
        { type: "text", text: " and " },
        { type: "code", text: "x<y>" },
        { type: "text", text: ".\nsame paragraph" },
      ],
    });
    assert.deepEqual(blocks[3], {
      type: "list",
      ordered: true,
      items: [[{ type: "text", text: "one" }], [{ type: "text", text: "two" }]],
    });
    assert.deepEqual(blocks[4], {
      type: "code",
      lang: "ts",
      text: "const a = `b`;\n<b>not bold</b>",
    });
  });

  test("an unclosed fence is code up to the end (a streamed answer mid-block)", () => {
    assert.deepEqual(parseMarkdown("look:\n```\nline 1\nline"), [
      { type: "paragraph", children: [{ type: "text", text: "look:" }] },
      { type: "code", lang: "", text: "line 1\nline" },
    ]);
  });

  test("links only to http(s); HTML and other schemes stay text", () => {
    assert.deepEqual(parseInline("[ok](https://example.com/a?b=1)"), [
      {
        type: "link",
        href: "https://example.com/a?b=1",
        children: [{ type: "text", text: "ok" }],
      },
    ]);
    for (const href of ["javascript:alert(1)", "data:text/html,x", "/relative", "//evil.com"]) {
      assert.ok(!safeHref(href), href);
      assert.deepEqual(parseInline(`[x](${href})`), [{ type: "text", text: `[x](${href})` }]);
    }
    assert.deepEqual(parseMarkdown(HTML), [
      { type: "paragraph", children: [{ type: "text", text: HTML }] },
    ]);
    assert.deepEqual(parseInline("2 * 3 * 4 and snake_case_name"), [
      { type: "text", text: "2 * 3 * 4 and snake_case_name" },
    ]);
  });
});

let nextId = 1;
const entry = (
  kind: string,
  payload: Record<string, unknown>,
  meta: Record<string, unknown> = {},
): WireEntry => ({ id: nextId++, kind, payload, meta, date: "2026-12-01T10:00:00+00:00" });

describe("console page: tape timeline", () => {
  test("marks, tool cards paired by call id, spill handles, turns forked and merged back", () => {
    nextId = 1;
    const handle = "0123456789abcdef0123456789abcdef";
    const spilled = `[tool output spilled: 9,000 bytes in 1 chunks; handle: ${handle}]\n` +
      `[read with: spill_read(handle='${handle}', cursor=0, count=1, from_end=False)]\npreview`;
    const items = timeline([
      entry("anchor", { name: "session/start", state: { owner: "human" } }),
      entry("event", { name: "handoff", data: { name: "session/start", state: {} } }),
      entry("event", { name: "loop.start", data: { model: "m", prompt: "hi" } }),
      entry("message", { role: "user", content: "hi" }, { run_id: "r1" }),
      entry("tool_call", {
        calls: [
          { id: "a", type: "function", function: { name: "fs.read", arguments: '{"path":"x"}' } },
          { id: "b", type: "function", function: { name: "big", arguments: "{}" } },
        ],
      }, { run_id: "r1" }),
      entry("tool_result", { results: ["text of x", spilled] }, { run_id: "r1" }),
      entry("event", { name: "loop.start", data: { prompt: "again" } }),
      entry("anchor", { name: "phase-2", state: { summary: "did the reading" } }),
      entry("event", { name: "handoff", data: { name: "phase-2", state: { summary: "s" } } }),
      entry("event", {
        name: "sidecar.merge",
        data: { tape: "t__sidecar__spill", status: "error", error: "disk full" },
      }),
      entry("tool_call", {
        calls: [{ id: "c", type: "function", function: { name: "slow", arguments: "{}" } }],
      }),
      entry("anchor", {
        name: "auto_handoff/context_overflow",
        state: { reason: "context_length_exceeded", error: "too long", nested: { x: 1 } },
      }),
    ]);
    const brief = items.map((item) =>
      item.type === "mark"
        ? `${item.mark}:${item.title}:${item.summary}`
        : item.type === "tool"
        ? `tool:${item.callId}:${item.name}:${item.done}:${
          JSON.stringify(item.result)
        }:${item.spill}`
        : `entry:${item.label}`
    );
    assert.deepEqual(brief, [
      "handoff:handoff session/start:owner: human",
      "fork:turn on a fork of the tape \u00b7 m:hi",
      "entry:message user",
      'tool:a:fs.read:true:"text of x":null',
      `tool:b:big:true:${JSON.stringify(spilled)}:${handle}`,
      "merge:turn merged back:3 items written on the fork",
      "fork:turn on a fork of the tape:again",
      "handoff:handoff phase-2:did the reading",
      "merge:merge t__sidecar__spill error:disk full",
      "tool:c:slow:false:undefined:null",
      "anchor:anchor auto_handoff/context_overflow:reason: context_length_exceeded \u00b7 error: too long",
      "merge:turn merged back:1 item written on the fork",
    ]);
    const first = items[3]!;
    assert.ok(first.type === "tool");
    assert.deepEqual(first.arguments, { path: "x" });
    assert.equal(first.call.id, 5);
    assert.equal(first.resultEntry?.id, 6);
  });

  test("spill handles come only from the spill reference", () => {
    assert.equal(spillHandle("handle: 0123456789abcdef0123456789abcdef"), null);
    assert.equal(spillHandle({ handle: "0123456789abcdef0123456789abcdef" }), null);
  });
});

describe("console page: usage per turn", () => {
  test("sums the model calls of a turn", () => {
    assert.equal(
      usageLine({ prompt: 120, completion: 30, total: 150, cached: 100, calls: 2 }, 2, 2345),
      "usage: 150 tokens \u00b7 120 in \u00b7 30 out \u00b7 100 cached \u00b7 2 model calls \u00b7 2 steps \u00b7 2.3 s",
    );
    assert.equal(
      usageLine({ prompt: 0, completion: 0, total: 0, cached: 0, calls: 0 }, 1, 0),
      "usage: 0 tokens \u00b7 0 in \u00b7 0 out \u00b7 0 model calls \u00b7 1 step",
    );
  });
});

describe("console page: tool errors", () => {
  test("a wrapped failure shows its causes, each with its kind", () => {
    const error = new Error("Tool 'boom' execution failed.", {
      cause: new TypeError("disk <b>full</b>", { cause: "errno 28" }),
    });
    assert.deepEqual(errorLines(jsonSafe(error)), [
      "Tool 'boom' execution failed.",
      "caused by TypeError: disk <b>full</b>",
      "caused by: errno 28",
    ]);
    assert.deepEqual(errorLines(null), []);
    assert.deepEqual(errorLines({ message: "plain" }), ["plain"]);
  });

  test("a tool's error record reads as text: the developer representation unquoted, real newlines", () => {
    const record = {
      kind: "tool",
      message: "Tool 'bash' execution failed.",
      details: {
        error: `ShellCommandError("command exited with code 2\\noutput:\\nls: cannot access '/x'")`,
      },
    };
    assert.ok(isErrorRecord(record));
    assert.ok(!isErrorRecord({ kind: "tool", message: "m", result: 1 }), "other fields: a result");
    assert.deepEqual(errorLines(record), [
      "Tool 'bash' execution failed.",
      "ShellCommandError: command exited with code 2",
      "output:",
      "ls: cannot access '/x'",
    ]);
    assert.equal(readableRepr(`Error('it\\'s \\x41\\tB')`), "Error: it's A\tB");
    assert.equal(readableRepr(`'just text\\n'`), "just text\n");
    assert.equal(readableRepr("no repr here"), "no repr here");
  });
});

describe("console page: tool cards and times", () => {
  test("a card is keyed by turn, step and call id (providers reuse call ids)", () => {
    const data = { call_id: "call_1", name: "bash" };
    assert.notEqual(cardKey(1, 0, data), cardKey(2, 0, data));
    assert.notEqual(cardKey(1, 0, data), cardKey(1, 1, data));
    assert.equal(cardKey(1, 0, data), cardKey(1, 0, { ...data }));
    assert.equal(cardKey(3, 1, { name: "fs.read" }), "3:1:fs.read");
  });

  test("tape dates show as local times relative to now", () => {
    const now = new Date(2026, 11, 3, 15, 0, 0);
    const at = (d: number, h: number, m: number, s = 0) =>
      new Date(2026, 11, d, h, m, s).toISOString();
    assert.equal(localTime(at(3, 11, 45, 56), now), "11:45:56");
    assert.equal(localTime(at(2, 11, 45), now), "yesterday 11:45");
    assert.equal(localTime(at(30 - 30 + 1, 9, 5), now), "Tue 09:05");
    assert.equal(localTime(new Date(2026, 10, 20, 8, 0).toISOString(), now), "2026-11-20 08:00");
    assert.equal(localTime("not a date", now), "not a date");
  });
});

describe("console page: token and event stream", () => {
  test("the token comes from the fragment or the query and leaves the URL", () => {
    assert.deepEqual(takeToken("http://127.0.0.1:5/#token=abc"), { token: "abc", clean: "/" });
    assert.deepEqual(takeToken("http://127.0.0.1:5/?token=abc"), { token: "abc", clean: "/" });
    assert.deepEqual(takeToken("http://127.0.0.1:5/#chat=x&token=abc"), {
      token: "abc",
      clean: "/#chat=x",
    });
    assert.deepEqual(takeToken("http://127.0.0.1:5/#chat=x"), { token: null, clean: "/#chat=x" });
  });

  test("server-sent events are parsed as they arrive, split anywhere", () => {
    const wire = ': bub\n\nevent: text\ndata: {"delta":"a"}\n\n: keep-alive\n\n' +
      "event: done\r\ndata: 1\r\ndata: 2\r\n\r\nevent: tail\ndata: x";
    for (let cut = 0; cut <= wire.length; cut++) {
      const first = parseSse(wire.slice(0, cut));
      const second = parseSse(first.rest + wire.slice(cut));
      assert.deepEqual([...first.events, ...second.events], [
        { kind: "text", data: '{"delta":"a"}' },
        { kind: "done", data: "1\n2" },
      ], `cut at ${cut}`);
      assert.equal(second.rest, "event: tail\ndata: x");
    }
  });
});

describe("console page: a chat's history from its tape", () => {
  let id = 0;
  const entry = (kind: string, payload: Record<string, unknown>): WireEntry => ({
    id: ++id,
    kind,
    payload,
    meta: {},
    date: "2026-12-03T10:00:00.000000+00:00",
  });
  const event = (name: string, data: Record<string, unknown>) => entry("event", { name, data });

  test("turns become prompts, paired tool cards, answers, steering and stopped turns", () => {
    const items = chatHistory([
      entry("anchor", { name: "session/start", state: {} }),
      event("handoff", { name: "session/start", state: {} }),
      event("loop.start", { prompt: "list files" }),
      entry("system", { content: "..." }),
      entry("message", { role: "user", content: "list files" }),
      entry("tool_call", {
        calls: [
          { id: "call_1", function: { name: "bash", arguments: '{"command":"ls"}' } },
          { id: "call_1", function: { name: "fs.read", arguments: '{"path":"x"}' } },
        ],
      }),
      entry("tool_result", {
        results: ["a\nb", { kind: "tool", message: "Tool 'fs.read' execution failed." }],
      }),
      entry("message", { role: "user", content: "and hidden ones" }),
      entry("message", { role: "assistant", content: "**a** and b" }),
      event("loop.start", { prompt: [{ type: "text", text: "slow" }] }),
      event("command", { raw: "echo hi", output: "hi" }),
      event("handoff", { name: "phase-2", state: {} }),
    ]);
    assert.deepEqual(
      items.map((item) =>
        item.type === "tool"
          ? ["tool", item.name, item.done, item.failed, item.arguments]
          : item.type === "user"
          ? ["user", item.text, item.steer]
          : [item.type, item.text]
      ),
      [
        ["user", "list files", false],
        ["tool", "bash", true, false, { command: "ls" }],
        ["tool", "fs.read", true, true, { path: "x" }],
        ["user", "and hidden ones", true],
        ["bot", "**a** and b"],
        ["user", "slow", false],
        ["note", "no answer (stopped or failed)"],
        ["user", ",echo hi", false],
        ["bot", "```\nhi\n```"],
        ["note", "handoff phase-2"],
      ],
    );
  });
});
