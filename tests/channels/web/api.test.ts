/**
 * The web console's API against a real framework and MockLlmServer: the page without the token,
 * the API with it as a Bearer header only (401 otherwise),
 * a turn's typed events over SSE, steering, cancel, the tape list and entries (with search), and a tool
 * result carrying HTML returned as JSON text while the page script never uses innerHTML.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { definePlugin } from "../../../src/kernel/plugin.ts";
import { mockReply } from "../../../src/testing/mock_llm_server.ts";
import { defineTool } from "../../../src/tools/tool.ts";
import { startWebConsole } from "../../../src/channels/web/console.ts";
import { CONTENT_SECURITY_POLICY } from "../../../src/channels/web/app.ts";
import { PAGE_JS } from "../../../src/channels/web/page.ts";
import { TEST_API_KEY, turnFixture } from "../../agent/_turn_fixture.ts";

const HTML = `<script>alert(1)</script><img src=x onerror="alert(2)">`;

const evil = defineTool({
  name: "evil",
  parameters: { type: "object" },
  handler: () => HTML,
});

interface Sse {
  kind: string;
  data: Record<string, unknown>;
}

/** Reads SSE events from `url` until `until` returns true; returns them all. */
async function readEvents(url: string, token: string, until: (e: Sse) => boolean): Promise<Sse[]> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${token}` },
    signal: controller.signal,
  });
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /text\/event-stream/);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: Sse[] = [];
  let buffer = "";
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended early: ${JSON.stringify(events)}`);
      buffer += value;
      let index;
      while ((index = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, index);
        buffer = buffer.slice(index + 2);
        const kind = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (!kind || data === undefined) continue;
        const event = { kind, data: JSON.parse(data) };
        events.push(event);
        if (until(event)) return events;
      }
    }
  } finally {
    controller.abort();
    await reader.cancel().catch(() => {});
  }
}

describe("web console API", () => {
  test("the page is served without the token, the API only with it as a Bearer header", async () => {
    await using fx = await turnFixture({ script: [mockReply.text("hi")] });
    await using web = await startWebConsole(fx.bub);
    assert.match(web.openUrl, /^http:\/\/127\.0\.0\.1:\d+\/#token=[0-9a-f]{64}$/);
    for (const path of ["/api/tapes", "/api/sessions/a/events", "/api/nope"]) {
      const response = await fetch(web.url + path);
      assert.equal(response.status, 401, path);
      assert.equal(response.headers.get("content-security-policy"), CONTENT_SECURITY_POLICY);
      await response.body?.cancel();
    }
    const post = await fetch(`${web.url}/api/sessions/a/messages`, {
      method: "POST",
      body: JSON.stringify({ content: "x" }),
      headers: { "content-type": "application/json", authorization: "Bearer wrong" },
    });
    assert.equal(post.status, 401);
    await post.body?.cancel();
    const page = await fetch(web.openUrl, { redirect: "manual" });
    assert.equal(page.status, 200);
    assert.equal(page.headers.get("set-cookie"), null, "no cookie carries the token");
    assert.equal(page.headers.get("content-security-policy"), CONTENT_SECURITY_POLICY);
    const html = await page.text();
    assert.match(html, /<script type="module" src="\/app.js"><\/script>/);
    assert.doesNotMatch(html, /<script>/, "no inline script");
    assert.ok(!html.includes(web.token), "the page itself holds no token");
    for (
      const [path, type] of [["/app.js", /text\/javascript/], ["/app.css", /text\/css/]] as const
    ) {
      const asset = await fetch(web.url + path);
      assert.equal(asset.status, 200, path);
      assert.match(asset.headers.get("content-type") ?? "", type);
      assert.equal(asset.headers.get("content-security-policy"), CONTENT_SECURITY_POLICY);
      await asset.body?.cancel();
    }
    const listed = await fetch(`${web.url}/api/tapes`, {
      headers: { authorization: `Bearer ${web.token}` },
    });
    assert.equal(listed.status, 200);
    await listed.body?.cancel();
  });

  test("a turn streams its typed events over SSE; the HTML tool result stays JSON text; tapes list and search", async () => {
    await using fx = await turnFixture({
      script: [mockReply.toolCall("evil", {}, { id: "e1" }), { text: ["all ", "done"] }],
      plugins: [definePlugin({ name: "evil", tools: [evil] })],
    });
    await using web = await startWebConsole(fx.bub);
    const auth = { authorization: `Bearer ${web.token}`, "content-type": "application/json" };
    const posted = await fetch(`${web.url}/api/sessions/t1/messages`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ content: "run the evil tool" }),
    });
    assert.equal(posted.status, 202);
    assert.deepEqual(await posted.json(), { turn: 1, steered: false, session_id: "web:t1" });
    const events = await readEvents(
      `${web.url}/api/sessions/t1/events`,
      web.token,
      (event) => event.kind === "done" || event.kind === "failed",
    );
    const kinds = events.map((event) => event.kind);
    assert.equal(kinds[0], "turn_start");
    for (const kind of ["step_start", "tool_start", "tool_end", "tool_result", "text", "done"]) {
      assert.ok(kinds.includes(kind), `${kind} in ${kinds.join(",")}`);
    }
    const end = events.find((event) => event.kind === "tool_end")!;
    assert.equal(end.data.result, HTML, "the tool result arrives as the exact JSON string");
    assert.equal(end.data.ok, true);
    const done = events.at(-1)!;
    assert.deepEqual(done.data, { session_id: "web:t1", text: "all done" });
    const text = events.filter((e) => e.kind === "text").map((e) => e.data.delta).join("");
    assert.equal(text, "all done");

    const { tapes } = await (await fetch(`${web.url}/api/tapes`, { headers: auth })).json();
    assert.ok(tapes.length >= 1);
    const tape = tapes[0];
    assert.ok(tape.entries > 0 && typeof tape.last_activity === "string", JSON.stringify(tape));
    const listed = await fetch(`${web.url}/api/tapes/${encodeURIComponent(tape.name)}/entries`, {
      headers: auth,
    });
    const { entries } = await listed.json();
    assert.equal(entries.length, tape.entries);
    assert.ok(entries.some((e: { kind: string }) => e.kind === "tool_result"));
    const found = await fetch(
      `${web.url}/api/tapes/${encodeURIComponent(tape.name)}/entries?q=${
        encodeURIComponent("onerror")
      }`,
      { headers: auth },
    );
    const searched = (await found.json()).entries as { kind: string; payload: unknown }[];
    assert.ok(searched.length >= 1 && searched.length < entries.length);
    assert.ok(JSON.stringify(searched).includes("onerror"));
    const sent = JSON.stringify([events, tapes, entries]);
    assert.ok(!sent.includes(TEST_API_KEY), "the API key never reaches the page");
    const missing = await fetch(`${web.url}/api/tapes/nope/entries`, { headers: auth });
    assert.equal(missing.status, 404);
    assert.equal((await missing.json()).error.kind, "not_found");
  });

  test("a message sent while a turn runs is steered into it", async () => {
    const slow = defineTool({
      name: "slow",
      parameters: { type: "object" },
      handler: () => new Promise((resolve) => setTimeout(() => resolve("slept"), 600)),
    });
    await using fx = await turnFixture({
      script: [mockReply.toolCall("slow", {}, { id: "s1" }), mockReply.text("took both")],
      plugins: [definePlugin({ name: "slow", tools: [slow] })],
    });
    await using web = await startWebConsole(fx.bub);
    const auth = { authorization: `Bearer ${web.token}`, "content-type": "application/json" };
    const post = async (content: string) =>
      await (await fetch(`${web.url}/api/sessions/s/messages`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ content }),
      })).json();
    const events: Sse[] = [];
    const reading = readEvents(`${web.url}/api/sessions/s/events`, web.token, (event) => {
      events.push(event);
      return event.kind === "done" || event.kind === "failed";
    });
    assert.deepEqual(await post("first"), { turn: 1, steered: false, session_id: "web:s" });
    while (!events.some((event) => event.kind === "tool_start")) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.deepEqual(await post("steer me too"), { turn: 1, steered: true, session_id: "web:s" });
    const all = await reading;
    assert.equal(all.at(-1)!.kind, "done");
    assert.ok(all.some((event) => event.kind === "steer" && event.data.content === "steer me too"));
    assert.equal(fx.server.requests.length, 2, "one turn, two model calls");
    assert.ok(JSON.stringify(fx.bodies()[1]).includes("steer me too"), "the model saw the steer");
  });

  test("cancel stops a running turn; bad input is 400", async () => {
    await using fx = await turnFixture({
      script: [{ text: ["slow ", "answer"], delayMs: 2000 }, mockReply.text("later")],
    });
    await using web = await startWebConsole(fx.bub);
    const auth = { authorization: `Bearer ${web.token}`, "content-type": "application/json" };
    const post = (content: unknown) =>
      fetch(`${web.url}/api/sessions/c1/messages`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ content }),
      });
    const started = await post("go");
    assert.equal(started.status, 202);
    await started.body?.cancel();
    const bad = await post(42);
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).error.kind, "invalid_input");
    const badId = await fetch(`${web.url}/api/sessions/${encodeURIComponent("a b")}/messages`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ content: "x" }),
    });
    assert.equal(badId.status, 400);
    await badId.body?.cancel();
    const cancel = await fetch(`${web.url}/api/sessions/c1/cancel`, {
      method: "POST",
      headers: auth,
      body: "{}",
    });
    assert.deepEqual(await cancel.json(), { cancelled: true });
    const events = await readEvents(
      `${web.url}/api/sessions/c1/events`,
      web.token,
      (event) => ["done", "failed", "cancelled"].includes(event.kind),
    );
    assert.equal(events.at(-1)!.kind, "cancelled");
  });

  test("the page script renders with textContent and never with innerHTML or similar sinks", () => {
    assert.ok(PAGE_JS.includes("textContent"));
    for (
      const sink of ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("]
    ) {
      assert.ok(!PAGE_JS.includes(sink), sink);
    }
  });
});
