/**
 * The scanner of an oversized MCP message (`_oversized.ts`): whatever the key order and however
 * the bytes are split, it finds the id, keeps the start of the text blocks (escapes decoded) and
 * `isError`, writes every byte to its spill file, and refuses a message that is no response.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OversizedMessage } from "../../../src/tools/mcp/_oversized.ts";

const encoder = new TextEncoder();

/** Feeds `json` to a new OversizedMessage in chunks of `size` bytes; returns it and its file. */
function feed(json: string, cap: number, size: number): { outcome: unknown; file: string } {
  const dir = mkdtempSync(join(tmpdir(), "bub-oversized-test-"));
  const path = join(dir, "m.json");
  const bytes = encoder.encode(json);
  const message = new OversizedMessage(path, cap, [
    bytes.subarray(0, Math.min(size, bytes.length)),
  ]);
  for (let at = size; at < bytes.length; at += size) message.write(bytes.subarray(at, at + size));
  const outcome = message.end();
  const file = readFileSync(path, "utf8");
  rmSync(dir, { recursive: true, force: true });
  return { outcome, file };
}

function resultText(outcome: unknown): string {
  const message = (outcome as { message: { result: { content: { text: string }[] } } }).message;
  return message.result.content[0]!.text;
}

describe("oversized MCP message", () => {
  const text = 'é "quoted" \\ back\nslash\t' + "z".repeat(5000);
  for (const size of [1, 7, 64, 100_000]) {
    test(`id after the result (the TypeScript SDK's order), split in ${size}-byte chunks`, () => {
      const json = JSON.stringify({
        result: { content: [{ type: "text", text }, { type: "text", text: "second" }] },
        jsonrpc: "2.0",
        id: 42,
      });
      const { outcome, file } = feed(json, 1024, size);
      assert.equal(file, json, "the spill file holds every byte");
      const message = (outcome as { message: Record<string, unknown> }).message;
      assert.equal(message.id, 42);
      assert.equal(message.jsonrpc, "2.0");
      const kept = resultText(outcome);
      const [start, note] = kept.split("\n...[MCP result cut: ");
      assert.ok(text.startsWith(start!), `kept ${JSON.stringify(start!.slice(0, 40))}`);
      assert.ok(start!.length > 900, `kept ${start!.length} characters`);
      assert.match(note!, /the server sent [\d,]+ bytes, past mcp_max_result_bytes \(1 KiB\)/);
    });
  }

  test("id first (other SDKs' order), a string id, nested objects and isError", () => {
    const json = JSON.stringify({
      jsonrpc: "2.0",
      id: "req-7",
      result: {
        _meta: { deep: { deeper: { deepest: [{ text: "not a block" }] } } },
        content: [{ type: "text", text: "boom ".repeat(1000) }],
        isError: true,
      },
    });
    const { outcome } = feed(json, 1024, 33);
    const message = (outcome as { message: { id: unknown; result: { isError?: boolean } } })
      .message;
    assert.equal(message.id, "req-7");
    assert.equal(message.result.isError, true);
    assert.ok(resultText(outcome).startsWith("boom boom"));
  });

  test("an error response keeps its id and becomes a JSON-RPC error naming the cap", () => {
    const json = JSON.stringify({
      jsonrpc: "2.0",
      id: 3,
      error: { code: -32000, message: "e".repeat(3000) },
    });
    const { outcome } = feed(json, 1024, 100);
    const message = (outcome as { message: { id: number; error: { message: string } } }).message;
    assert.equal(message.id, 3);
    assert.match(message.error.message, /error response passed mcp_max_result_bytes \(1 KiB\)/);
  });

  test("a request or a message without an id is refused with an error, not delivered", () => {
    for (
      const json of [
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "sampling",
          params: { x: "p".repeat(3000) },
        }),
        JSON.stringify({
          jsonrpc: "2.0",
          result: { content: [{ type: "text", text: "q".repeat(3000) }] },
        }),
      ]
    ) {
      const { outcome } = feed(json, 1024, 50);
      assert.match((outcome as { error: string }).error, /that is not a response; dropped/);
    }
  });
});
