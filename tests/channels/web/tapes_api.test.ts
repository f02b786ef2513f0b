/**
 * The console's tape API against a real framework (file tape store) and MockLlmServer: the tape
 * list in pages (newest first, a `before` cursor, bad limits are 400) naming the console's own
 * sessions, and spilled tool results served only from the spill sidecar of the tape named in
 * the request (bad handles are 400; traversal, sidecar names and other tapes are 404); secret
 * values never reach the page.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { definePlugin } from "../../../src/kernel/plugin.ts";
import { mockReply } from "../../../src/testing/mock_llm_server.ts";
import { defineTool } from "../../../src/tools/tool.ts";
import { createEntry } from "../../../src/tape/entry.ts";
import { sessionTapeName } from "../../../src/tape/naming.ts";
import type { TapeStore } from "../../../src/tape/store.ts";
import { startWebConsole } from "../../../src/channels/web/console.ts";
import { turnFixture } from "../../agent/_turn_fixture.ts";

const HTML = `<script>alert(1)</script><img src=x onerror="alert(2)"> and more text`;
const evil = defineTool({ name: "evil", parameters: { type: "object" }, handler: () => HTML });
const at = (day: number) => `2026-11-0${day}T10:00:00.000000+00:00`;

interface Row {
  name: string;
  session_id: string | null;
  title: string | null;
  entries: number;
  last_activity: string | null;
  waiting: number;
}

// deno-lint-ignore no-explicit-any
type Json = any;

async function getJson(url: string, token: string): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: await response.json() };
}

describe("web console tape API", () => {
  test("a session whose turn waits for approval is named from its tape and badged until decided", async () => {
    const touch = defineTool({
      name: "touch",
      parameters: { type: "object" },
      handler: () => "ok",
    });
    await using fx = await turnFixture({
      script: [mockReply.toolCall("touch", {}), mockReply.text("done")],
      tools: [touch],
      env: { BUB_APPROVALS: '[{"tool":"touch"}]' },
    });
    await using web = await startWebConsole(fx.bub);
    const asked = await fx.bub.processInbound({ channel: "telegram", chatId: "9", content: "go" });
    const id = /,approve ([a-z2-7]{10})/.exec(asked.modelOutput)?.[1];
    assert.ok(id, asked.modelOutput);
    const name = sessionTapeName("telegram:9", fx.home);
    const row = async () =>
      ((await getJson(`${web.url}/api/tapes`, web.token)).body.tapes as Row[])
        .find((tape) => tape.name === name)!;
    const before = await row();
    assert.equal(before.session_id, "telegram:9", "named from the tape, not known to the console");
    assert.equal(before.waiting, 1);
    await fx.bub.processInbound({ channel: "telegram", chatId: "9", content: `,approve ${id}` });
    assert.equal((await row()).waiting, 0);
  });

  test("the tape list comes in pages, newest first, and names the console's sessions", async () => {
    await using fx = await turnFixture({ script: [mockReply.text("hi")] });
    await using web = await startWebConsole(fx.bub);
    const store = fx.bub.getTapeStore<TapeStore>()!;
    for (const day of [1, 2, 3]) {
      await store.append(`old__${day}`, createEntry("event", { name: "x" }, {}, at(day)));
      await store.append(`old__${day}`, createEntry("event", { name: "y" }, {}, at(day)));
    }
    await store.append("old__1__sidecar__spill", createEntry("event", { name: "z" }, {}, at(9)));
    const posted = await fetch(`${web.url}/api/sessions/t1/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${web.token}`, "content-type": "application/json" },
      body: JSON.stringify({ content: "hello" }),
    });
    assert.equal(posted.status, 202);
    const webTape = sessionTapeName("web:t1", fx.home);
    let all: Row[] = [];
    for (let i = 0; i < 200; i++) {
      all = (await getJson(`${web.url}/api/tapes`, web.token)).body.tapes;
      if (all.some((row) => row.name === webTape && row.entries >= 3)) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.deepEqual(all.map((row) => [row.name, row.session_id, row.title]), [
      [webTape, "web:t1", "hello"],
      ["old__3", null, null],
      ["old__2", null, null],
      ["old__1", null, null],
    ]);
    const entries = (await getJson(
      `${web.url}/api/tapes/${webTape}/entries`,
      web.token,
    )).body.entries;
    assert.equal(all[0]!.entries, entries.length, "the count is the newest entry's id");
    assert.equal(all[0]!.last_activity, entries.at(-1).date);
    assert.deepEqual(all[1], {
      name: "old__3",
      session_id: null,
      title: null,
      entries: 2,
      last_activity: at(3),
      waiting: 0,
    });

    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&before=${encodeURIComponent(cursor)}` : "";
      const { status, body } = await getJson(`${web.url}/api/tapes?limit=3${query}`, web.token);
      assert.equal(status, 200);
      pages.push(body.tapes.map((row: Row) => row.name));
      cursor = body.next;
    } while (cursor);
    assert.deepEqual(pages, [[webTape, "old__3", "old__2"], ["old__1"]]);
    for (const bad of ["limit=0", "limit=501", "limit=abc", "limit=1.5", "before=nocursor"]) {
      const { status, body } = await getJson(`${web.url}/api/tapes?${bad}`, web.token);
      assert.equal(status, 400, bad);
      assert.equal(body.error.kind, "invalid_input", bad);
    }
  });

  test("after a restart the console's own chat keeps its name, and every tape gets a title from its first words", async () => {
    await using fx = await turnFixture({ script: [mockReply.text("hi")] });
    await fx.turn({ channel: "web", chatId: "console", content: "plan  the\nweek ahead" });
    await fx.turn(",echo from a comma");
    // A console started after the turns knows no chat of its own making.
    await using web = await startWebConsole(fx.bub);
    const rows: Row[] = (await getJson(`${web.url}/api/tapes`, web.token)).body.tapes;
    const byName = new Map(rows.map((row) => [row.name, row]));
    const own = byName.get(sessionTapeName("web:console", fx.home))!;
    assert.deepEqual([own.session_id, own.title], ["web:console", "plan the week ahead"]);
    const cli = byName.get(sessionTapeName("cli:local", fx.home))!;
    // Named from its tape's bootstrap anchor, though the console never served it.
    assert.deepEqual([cli.session_id, cli.title], ["cli:local", ",echo from a comma"]);
  });

  test("a chat's history: its tape's newest entries, pages that start at a turn, bad cursors refused", async () => {
    await using fx = await turnFixture({
      script: [mockReply.text("one"), mockReply.text("two"), mockReply.text("three")],
    });
    for (const content of ["first", "second", "third"]) {
      await fx.turn({ channel: "web", chatId: "c1", content });
    }
    await using web = await startWebConsole(fx.bub);
    const history = (query = "") =>
      getJson(`${web.url}/api/sessions/c1/history${query}`, web.token);
    const whole = await history();
    assert.equal(whole.status, 200);
    assert.equal(whole.body.next, null);
    const prompts = (entries: Json[]) =>
      entries.filter((e) => e.kind === "event" && e.payload.name === "loop.start")
        .map((e) => e.payload.data.prompt);
    assert.deepEqual(prompts(whole.body.entries), ["first", "second", "third"]);
    // A small page starts at the newest turn that fits; `next` reaches the ones before.
    const turnSize = whole.body.entries.length / 3;
    const last = await history(`?limit=${Math.floor(turnSize) + 2}`);
    assert.deepEqual(prompts(last.body.entries), ["third"]);
    assert.equal(last.body.entries[0].payload.name, "loop.start", "a page starts at a turn");
    const older = await history(`?limit=${Math.floor(turnSize) + 2}&before=${last.body.next}`);
    assert.deepEqual(prompts(older.body.entries), ["second"]);
    assert.deepEqual((await history("?limit=5")).body.entries.length > 0, true);
    assert.deepEqual((await getJson(`${web.url}/api/sessions/nobody/history`, web.token)).body, {
      entries: [],
      next: null,
    });
    for (const bad of ["?limit=0", "?limit=1001", "?limit=x", "?before=-1", "?before=abc"]) {
      const { status, body } = await history(bad);
      assert.equal(status, 400, bad);
      assert.equal(body.error.kind, "invalid_input", bad);
    }
    const unsafe = await getJson(
      `${web.url}/api/sessions/${encodeURIComponent("../x")}/history`,
      web.token,
    );
    assert.equal(unsafe.status, 400);
    const anonymous = await fetch(`${web.url}/api/sessions/c1/history`);
    assert.equal(anonymous.status, 401);
    await anonymous.body?.cancel();
  });

  test("the console's own finished turn is left to the event stream's replay, so it shows once", async () => {
    await using fx = await turnFixture({
      script: [mockReply.text("one"), mockReply.text("two")],
    });
    await fx.turn({ channel: "web", chatId: "c2", content: "before the console" });
    await using web = await startWebConsole(fx.bub);
    const posted = await fetch(`${web.url}/api/sessions/c2/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${web.token}`, "content-type": "application/json" },
      body: JSON.stringify({ content: "through the console" }),
    });
    assert.equal(posted.status, 202);
    await posted.body?.cancel();
    const prompts = async () => {
      const { body } = await getJson(`${web.url}/api/sessions/c2/history`, web.token);
      return body.entries.filter((e: Json) => e.payload.name === "loop.start")
        .map((e: Json) => e.payload.data.prompt);
    };
    // Once the console's turn has ended (its `done` is on the event stream), the history stops
    // before it: the stream replays it.
    const stream = await fetch(`${web.url}/api/sessions/c2/events`, {
      headers: { authorization: `Bearer ${web.token}` },
    });
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    for (let text = ""; !/event: done/.test(text);) text += (await reader.read()).value ?? "";
    await reader.cancel();
    assert.deepEqual(await prompts(), ["before the console"]);
  });

  test("a spilled result is read from the spill sidecar of its own tape and nowhere else", async () => {
    await using fx = await turnFixture({
      script: [mockReply.toolCall("evil", {}, { id: "e1" }), mockReply.text("done")],
      plugins: [definePlugin({ name: "evil", tools: [evil] })],
      env: { BUB_SPILL_THRESHOLD: "10" },
    });
    await fx.turn("run evil");
    await using web = await startWebConsole(fx.bub);
    const tape = sessionTapeName("cli:local", fx.home);
    const results = (await fx.entries()).filter((entry) => entry.kind === "tool_result");
    const reference = String((results[0]!.payload.results as unknown[])[0]);
    const handle = /handle: ([0-9a-f]{32})\]/.exec(reference)?.[1];
    assert.ok(handle, reference);
    const url = (name: string, h: string) =>
      `${web.url}/api/tapes/${encodeURIComponent(name)}/spill/${encodeURIComponent(h)}`;

    const ok = await getJson(url(tape, handle), web.token);
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body, {
      handle,
      tool: "evil",
      bytes: new TextEncoder().encode(HTML).length,
      chunks: 1,
      text: HTML,
      complete: true,
    });
    const anonymous = await fetch(url(tape, handle));
    assert.equal(anonymous.status, 401);
    await anonymous.body?.cancel();

    for (const bad of ["../../etc/passwd", handle.toUpperCase(), handle.slice(1), `${handle}0`]) {
      const { status, body } = await getJson(url(tape, bad), web.token);
      assert.equal(status, 400, bad);
      assert.equal(body.error.kind, "invalid_input");
    }
    const store = fx.bub.getTapeStore<TapeStore>()!;
    await store.append("other__tape", createEntry("event", { name: "x" }));
    for (
      const name of [
        "other__tape",
        `${tape}__sidecar__spill`,
        `../${tape}`,
        `../../${tape.split("__")[0]}`,
        "nope",
      ]
    ) {
      const { status, body } = await getJson(url(name, handle), web.token);
      assert.equal(status, 404, name);
      assert.equal(body.error.kind, "not_found", name);
    }
    const unknown = await getJson(url(tape, "f".repeat(32)), web.token);
    assert.equal(unknown.status, 404);
  });

  test("secrets never reach the page: the event stream and the tape entries are redacted", async () => {
    const secret = "sk-live-0123456789abcdef";
    const leak = defineTool({
      name: "leak",
      parameters: { type: "object" },
      handler: () => `the key is ${secret}`,
    });
    await using fx = await turnFixture({
      script: [mockReply.toolCall("leak", {}), mockReply.text(`I saw "${secret}"`)],
      plugins: [definePlugin({ name: "leak", tools: [leak] })],
    });
    await using web = await startWebConsole(fx.bub, { secrets: [secret] });
    const posted = await fetch(`${web.url}/api/sessions/s1/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${web.token}`, "content-type": "application/json" },
      body: JSON.stringify({ content: `here is ${secret}` }),
    });
    assert.equal(posted.status, 202);
    const controller = new AbortController();
    const stream = await fetch(`${web.url}/api/sessions/s1/events`, {
      headers: { authorization: `Bearer ${web.token}` },
      signal: controller.signal,
    });
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    let sse = "";
    while (!/^event: (done|failed)$/m.test(sse)) {
      const { value, done } = await reader.read();
      if (done) break;
      sse += value;
    }
    controller.abort();
    await reader.cancel().catch(() => {});
    assert.ok(/^event: done$/m.test(sse), sse);
    assert.ok(!sse.includes(secret), "no secret in the event stream");
    assert.ok(sse.includes("the key is [REDACTED]"), sse);
    const tape = sessionTapeName("web:s1", fx.home);
    const entries = await fetch(`${web.url}/api/tapes/${tape}/entries`, {
      headers: { authorization: `Bearer ${web.token}` },
    });
    const text = await entries.text();
    assert.equal(entries.status, 200);
    assert.ok(!text.includes(secret), "no secret in the tape entries");
    assert.ok(text.includes("the key is [REDACTED]"), text);
    assert.ok(JSON.parse(text).entries.length > 3);
  });
});
