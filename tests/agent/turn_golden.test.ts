/**
 * Golden turns: a fixed script of turns (text answers, a tool call and its result, two sessions,
 * a session long enough for its history to be sent from the kept JSON) through the builtin
 * framework and a real mock model server. The request bytes the server receives and the bytes of
 * the tape files are compared with committed fixtures (dates, ids and the temporary home
 * normalised), so a change of how a turn is built that changes either fails here.
 *
 * `BUB_UPDATE_GOLDEN=1` rewrites the fixtures (only for an intended change of the wire or the tape).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import process from "node:process";
import { z } from "zod";
import { definePlugin } from "../../src/kernel/plugin.ts";
import { readBody, startLoopbackServer } from "../../src/testing/_http.ts";
import { mockReply } from "../../src/testing/mock_llm_server.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { turnFixture } from "./_turn_fixture.ts";

const FIXTURES = new URL("../fixtures/golden/", import.meta.url);

/** A loopback proxy in front of the mock server that keeps each request body's raw bytes. */
async function recordingProxy() {
  const bodies: string[] = [];
  let upstream = "";
  const http = await startLoopbackServer(
    async (req: IncomingMessage, res: ServerResponse) => {
      const body = await readBody(req);
      bodies.push(body.toString("utf8"));
      const response = await fetch(`${upstream}${req.url}`, {
        method: req.method,
        headers: { "content-type": String(req.headers["content-type"] ?? "application/json") },
        body: new Uint8Array(body),
      });
      res.writeHead(response.status, {
        "content-type": response.headers.get("content-type") ?? "text/plain",
      });
      res.end(new Uint8Array(await response.arrayBuffer()));
    },
    (res) => res.destroy(),
  );
  return {
    bodies,
    url: `http://127.0.0.1:${http.port}/v1`,
    forwardTo(url: string) {
      upstream = new URL(url).origin;
    },
    close: () => http.close(),
  };
}

/**
 * Replaces what differs from run to run: the home folder, dates, durations, and run ids (numbered
 * in order of appearance, so which entries share a run still shows).
 */
function normaliser(home: string): (text: string) => string {
  const runs = new Map<string, string>();
  return (text) =>
    text
      .replaceAll(home, "<home>")
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)/g, "<date>")
      .replace(/run-\d{8}T\d{12}Z/g, (id) => {
        if (!runs.has(id)) runs.set(id, `<run-${runs.size + 1}>`);
        return runs.get(id)!;
      })
      .replace(/"(elapsed_ms|duration_ms|durationMs)": ?[0-9.e+-]+/g, '"$1": 0');
}

/** Compares `actual` with the fixture `name` (or writes it with `BUB_UPDATE_GOLDEN=1`). */
function golden(name: string, actual: string): void {
  const path = new URL(name, FIXTURES);
  if (process.env.BUB_UPDATE_GOLDEN === "1") writeFileSync(path, actual);
  assert.ok(existsSync(path), `missing fixture ${name} (BUB_UPDATE_GOLDEN=1 writes it)`);
  const expected = readFileSync(path, "utf8");
  const [a, e] = [actual.split("\n"), expected.split("\n")];
  for (let i = 0; i < Math.max(a.length, e.length); i++) {
    assert.equal(a[i], e[i], `${name}: line ${i + 1} differs`);
  }
}

const lookup = defineTool({
  name: "golden.lookup",
  description: "Looks a word up",
  parameters: z.object({ word: z.string() }),
  handler: ({ word }) => `${word}: a word of ${word.length} letters`,
});

test("a fixed script of turns sends the golden request bytes and writes the golden tape bytes", async () => {
  const proxy = await recordingProxy();
  try {
    const script = [
      mockReply.text("Hello! How can I help?", { chunks: 3 }),
      mockReply.toolCall("golden_lookup", { word: "tape" }, { id: "call_1" }),
      mockReply.text("A tape is a word of 4 letters."),
      ...Array.from({ length: 10 }, (_, i) => mockReply.text(`Answer ${i + 3}, ünïcödé ✓`)),
      mockReply.text("Other session answer."),
      mockReply.text("Back in the first session."),
    ];
    await using fx = await turnFixture({
      script,
      env: { BUB_API_BASE: proxy.url },
      plugins: [definePlugin({ name: "golden", tools: [lookup] })],
    });
    proxy.forwardTo(fx.server.url);
    await fx.turn("hi");
    await fx.turn("look up the word tape");
    for (let i = 3; i < 13; i++) await fx.turn(`question ${i} with "quotes" and\nnew lines`);
    await fx.turn({ channel: "cli", chatId: "other", content: "a second session" });
    await fx.turn("and once more");
    assert.equal(fx.server.pending, 0);
    const normalise = normaliser(fx.home);
    golden("turns.requests.jsonl", proxy.bodies.map(normalise).join("\n") + "\n");
    const tapes = join(fx.home, "tapes");
    const files = readdirSync(tapes).filter((name) => name.endsWith(".jsonl")).sort();
    const tapeText = files.map((name) =>
      `# ${name.replace(/^[0-9a-f]+__/, "<workspace>__")}\n${
        normalise(readFileSync(join(tapes, name), "utf8"))
      }`
    );
    golden("turns.tape.jsonl", tapeText.join(""));
  } finally {
    await proxy.close();
  }
});
