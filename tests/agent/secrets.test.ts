/**
 * API keys never reach the tape or the logs, on successful turns, tool rounds and failures.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { mockReply } from "../../src/testing/mock_llm_server.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { captureLogs } from "../_helpers/log_capture.ts";
import { TEST_API_KEY, turnFixture } from "./_turn_fixture.ts";

/** Everything reachable from a value as text, following errors' message, stack, cause and fields. */
function deepText(value: unknown, seen = new Set<unknown>()): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value !== "object" && typeof value !== "function") return String(value);
  if (seen.has(value)) return "";
  seen.add(value);
  const parts: string[] = [];
  if (value instanceof Error) {
    parts.push(value.message, value.stack ?? "", deepText(value.cause, seen));
  }
  if (value instanceof Headers) {
    for (const [k, v] of value) parts.push(`${k}: ${v}`);
  }
  for (const key of Object.getOwnPropertyNames(value)) {
    let item: unknown;
    try {
      item = (value as Record<string, unknown>)[key];
    } catch {
      continue;
    }
    parts.push(key, deepText(item, seen));
  }
  return parts.join("\n");
}

function tapeFilesText(home: string): string {
  const dir = join(home, "tapes");
  // The tapes and the `forks` folder's journals of turns in progress.
  return readdirSync(dir, { recursive: true }).map((name) => join(dir, String(name)))
    .filter((path) => statSync(path).isFile()).map((path) => readFileSync(path, "utf8")).join("\n");
}

describe("secrets", () => {
  for (const model of ["openai:gpt-test", "anthropic:claude-test", "openai-responses:gpt-test"]) {
    test(`the API key never appears on the tape or in the logs (${model}), on success, tool rounds and provider failures`, async () => {
      await using logs = await captureLogs();
      await using fx = await turnFixture({
        env: { BUB_MODEL: model },
        tools: [
          defineTool({
            name: "tests.echo",
            parameters: z.object({ text: z.string() }),
            handler: ({ text }) => text,
          }),
        ],
        script: [
          mockReply.toolCall("tests_echo", { text: "a" }),
          mockReply.text("done"),
          mockReply.error(401, "Incorrect API key provided"),
          mockReply.truncated({ text: ["x", "y", "z"], delayMs: 5 }, 2),
          mockReply.error(500, "internal"),
        ],
      });
      await fx.turn("go");
      await assert.rejects(fx.turn("unauthorized"));
      await assert.rejects(fx.turn("truncated"));
      await assert.rejects(fx.turn("server error"));
      // The key did go out on the wire (so the test can fail) ...
      const sent = JSON.stringify(fx.server.requests.map((r) => r.headers));
      assert.ok(sent.includes(TEST_API_KEY));
      // ... but it is nowhere on the tape or in the logs.
      const tape = tapeFilesText(fx.home);
      assert.ok(tape.includes("loop.step"), "the tape was written");
      assert.equal(tape.includes(TEST_API_KEY), false, "key on the tape");
      assert.ok(logs.records.length > 0, "logs were captured");
      for (const record of logs.records) {
        const text = deepText({ message: record.message, properties: record.properties });
        assert.equal(
          text.includes(TEST_API_KEY),
          false,
          `key in a log record: ${text.slice(0, 300)}`,
        );
      }
    });
  }
});
