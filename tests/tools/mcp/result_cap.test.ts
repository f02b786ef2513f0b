/**
 * MCP tool results past `mcp_max_result_bytes` (issue 27 item 7): a real stdio server (the SDK's)
 * and a Streamable HTTP server return more text than the cap; the model gets the first cap bytes
 * of the text and a note naming the cap and the file that holds all of it, and a result under
 * the cap arrives whole.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { McpManager } from "../../../src/tools/mcp/mcp_manager.ts";
import { parseMcpServers } from "../../../src/tools/mcp/config.ts";
import type { Tool, ToolContext } from "../../../src/tools/tool.ts";
import { mockReply } from "../../../src/testing/mock_llm_server.ts";
import { loadMcpSettings } from "../../../src/builtin/settings.ts";
import { turnFixture } from "../../agent/_turn_fixture.ts";
import { type HttpMcpServer, startHttpMcpServer } from "./_mcp_server.ts";
import { stdioServer } from "./_stdio_config.ts";

const CAP = 64 * 1024;
const CONTEXT: ToolContext = { tape: null, runId: null, state: {} };
/** The test server's `big` text: lines of 1023 `x` and a newline, then `y`s. */
function bigText(bytes: number): string {
  return ("x".repeat(1023) + "\n").repeat(Math.floor(bytes / 1024)) + "y".repeat(bytes % 1024);
}

/** The spill folders the tests made (removed at the end). */
const folders = new Set<string>();

function notePath(text: string): string {
  const match = /is in (\S+?)\]$/.exec(text);
  assert.ok(match, `no file named in: ${text.slice(-300)}`);
  folders.add(dirname(match[1]!));
  return match[1]!;
}

function removeFolders(): void {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
}

describe("MCP result cap", () => {
  let http: HttpMcpServer;
  let manager: McpManager;
  let lifespan: AsyncGenerator<McpManager, void, unknown>;
  const tool = (name: string): Tool => {
    const found = manager.tools().find((candidate) => candidate.name === name);
    assert.ok(found, `${name} missing: ${JSON.stringify(manager.status())}`);
    return found;
  };

  before(async () => {
    http = await startHttpMcpServer();
    manager = new McpManager({
      servers: () =>
        parseMcpServers({ mcp_servers: { demo: stdioServer(), web: { url: http.url } } }),
      maxResultBytes: () => CAP,
    });
    lifespan = manager.lifespan();
    await lifespan.next();
  });
  after(async () => {
    await lifespan.return(undefined);
    await http[Symbol.asyncDispose]();
    removeFolders();
  });

  test("stdio: a 3 MB result is cut to the start of its text (64 KiB as sent) with a note naming the cap; the file holds the whole message", async () => {
    const size = 3_000_000;
    const value = await tool("demo.big").run({ bytes: size }, CONTEXT);
    assert.equal(typeof value, "string");
    const text = value as string;
    const [kept, note] = text.split("\n...[MCP result cut: ");
    // The first 64 KiB of the message's text as sent (a newline is 2 bytes there, `\n`).
    assert.ok(bigText(size).startsWith(kept!), "the kept text is the start of the text");
    assert.ok(kept!.length > CAP * 0.9 && kept!.length <= CAP, `kept ${kept!.length}`);
    assert.match(note!, /^the server sent [\d,]+ bytes, past mcp_max_result_bytes \(64 KiB\)/);
    const path = notePath(text);
    try {
      assert.equal(statSync(path).mode & 0o777, 0o600);
      const message = JSON.parse(readFileSync(path, "utf8"));
      assert.equal(message.jsonrpc, "2.0");
      assert.equal(message.result.content[0].text, bigText(size));
    } finally {
      rmSync(path, { force: true });
    }
    // The connection goes on working.
    assert.equal(await tool("demo.add").run({ a: 2, b: 3 }, CONTEXT), "5");
  });

  test("stdio: a result under the cap arrives whole", async () => {
    assert.equal(await tool("demo.big").run({ bytes: 60_000 }, CONTEXT), bigText(60_000));
  });

  test("Streamable HTTP: a result past the cap is cut the same way; the file holds the whole text", async () => {
    const size = 300_000;
    const text = await tool("web.big").run({ bytes: size }, CONTEXT) as string;
    const [kept, note] = text.split("\n...[MCP result cut: ");
    assert.equal(kept, bigText(size).slice(0, CAP));
    assert.match(note!, /^300,000 bytes of text, past mcp_max_result_bytes \(64 KiB\)/);
    const path = notePath(text);
    try {
      assert.equal(readFileSync(path, "utf8"), bigText(size));
    } finally {
      rmSync(path, { force: true });
    }
  });
});

describe("MCP result cap setting", () => {
  after(removeFolders);

  test("BUB_MCP_MAX_RESULT_BYTES sets the cap (default 16 MiB, at least 1024)", () => {
    assert.equal(loadMcpSettings({ env: {} }).mcp_max_result_bytes, 16 * 1024 * 1024);
    const env = { BUB_MCP_MAX_RESULT_BYTES: "65536" };
    assert.equal(loadMcpSettings({ env }).mcp_max_result_bytes, 65536);
    assert.throws(
      () => loadMcpSettings({ env: { BUB_MCP_MAX_RESULT_BYTES: "10" } }),
      /mcp_max_result_bytes must be at least 1024, got 10 \(from BUB_MCP_MAX_RESULT_BYTES\)/,
    );
  });

  test("in a turn the model gets the cut result with the note, and the turn goes on", async () => {
    await using fx = await turnFixture({
      script: [
        mockReply.toolCall("demo_big", { bytes: 500_000 }, { id: "c1" }),
        mockReply.text("done"),
      ],
      env: { BUB_MCP_MAX_RESULT_BYTES: String(CAP), BUB_SPILL_THRESHOLD: "1000000" },
      config: { mcp_servers: { demo: stdioServer() } },
    });
    assert.equal((await fx.turn("go")).modelOutput, "done");
    const messages = (fx.bodies()[1]!.messages ?? []) as { role: string; content: unknown }[];
    const result = messages.find((message) => message.role === "tool");
    assert.ok(result, JSON.stringify(messages).slice(0, 500));
    const content = String(result.content);
    assert.ok(content.length < CAP + 1000, `the model got ${content.length} characters`);
    assert.match(content, /\.\.\.\[MCP result cut: the server sent [\d,]+ bytes, past/);
    rmSync(notePath(content), { force: true });
  });
});
