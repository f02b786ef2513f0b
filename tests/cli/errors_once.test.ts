/**
 * Each error reaches the terminal once: the sink drops later records about an error already shown
 * (or one wrapping it), `bub run` holds error records until it ends and drops those about the
 * error it fails with, and a real `bub run` whose MCP tool fails prints one line; an MCP server
 * that fails to start is logged as plain text with its stderr, not as a quoted JS string.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { LogRecord } from "@logtape/logtape";
import { onceSink } from "../../src/cli/errors_once.ts";
import { runCli, tempDirs } from "./_spawn.ts";
import { stdioServer } from "../tools/mcp/_stdio_config.ts";

function record(level: LogRecord["level"], message: string, error?: unknown): LogRecord {
  return {
    category: ["bub"],
    level,
    message: [message],
    rawMessage: message,
    timestamp: 0,
    properties: error === undefined ? {} : { error },
  };
}

describe("errors once", () => {
  test("a later record about a shown error, or one wrapping it, is dropped", () => {
    const written: string[] = [];
    const sink = onceSink((r) => void written.push(r.rawMessage as string), { hold: false });
    const error = new Error("boom");
    sink(record("error", "tool failed", error));
    sink(record("error", "turn failed", error));
    sink(record("error", "wrapped", new Error("outer", { cause: error })));
    sink(record("error", "other", new Error("other")));
    sink(record("info", "no error"));
    assert.deepEqual(written, ["tool failed", "other", "no error"]);
  });

  test("held error records: those about the failure go, the others are written at the end", () => {
    const written: string[] = [];
    const sink = onceSink((r) => void written.push(r.rawMessage as string), { hold: true });
    const failure = new Error("the command's failure");
    sink(record("error", "tool failed", failure));
    sink(record("error", "server failed", new Error("mcp down")));
    sink(record("warning", "a warning with an error", new Error("late")));
    assert.deepEqual(written, ["a warning with an error"], "warnings are not held");
    sink.settle(new Error("wrapper", { cause: failure }));
    assert.deepEqual(written, ["a warning with an error", "server failed"]);
    sink.settle(null);
    assert.equal(written.length, 2, "settling twice writes nothing again");
  });

  test("bub run with a failing MCP tool prints the failure once", async (t) => {
    const dirs = tempDirs();
    t.after(() => dirs.remove());
    const server = stdioServer();
    dirs.writeConfig(JSON.stringify({ mcp_servers: { t: server } }));
    const result = await runCli(dirs, ["run", "--demo", ",t.fail reason=nope"], {
      timeoutMs: 60_000,
    });
    assert.equal(result.code, 1, result.stderr);
    const lines = result.stderr.split("\n").filter((line) => line.includes("refused: nope"));
    assert.deepEqual(lines, [
      "bub: Tool 't.fail' failed: refused: nope (run again with --verbose for details)",
    ], result.stderr);
  });

  test("an MCP server that fails to start is logged as text with its stderr", async (t) => {
    const dirs = tempDirs();
    t.after(() => dirs.remove());
    const script = "echo 'Error: cannot open \"/srv/docs\"' >&2; exit 3";
    dirs.writeConfig(
      JSON.stringify({ mcp_servers: { t: { command: "bash", args: ["-c", script] } } }),
    );
    const result = await runCli(dirs, ["run", "--demo", "hello"], { timeoutMs: 60_000 });
    assert.equal(result.code, 0, result.stderr);
    const line = result.stderr.split("\n").find((l) => l.includes("bub·mcp"));
    assert.ok(line, result.stderr);
    assert.match(
      line,
      /\[ERR\] bub·mcp: MCP server 't' failed to start: the server exited with code 3 .*stderr: Error: cannot open "\/srv\/docs"$/,
    );
  });
});
