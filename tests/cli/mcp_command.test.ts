/**
 * `bub mcp` as a subprocess: starts the servers of `mcp_servers:`, prints each one's state and
 * tools (a failed one with its stderr), exits 1 when one failed, and leaves no server behind.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { cleanupStack, runCli, tempDirs } from "./_spawn.ts";
import { stdioServer } from "../tools/mcp/_stdio_config.ts";

describe("bub mcp", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test("lists each server's state and tools; a failed server's stderr; exit 1 on a failure", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    dirs.writeConfig(JSON.stringify({
      mcp_servers: {
        demo: stdioServer(),
        broken: { command: "sh", args: ["-c", "echo 'no license' >&2; exit 2"] },
      },
    }));
    const result = await runCli(dirs, ["mcp"], { timeoutMs: 60_000 });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, /^demo \(stdio\): ready pid \d+$/m);
    assert.match(result.stdout, /^ {2}- demo\.add\(a, b\): Add two numbers$/m);
    assert.match(result.stdout, /^ {2}- demo\.fail\(reason\?\): Always fails$/m);
    assert.match(result.stdout, /^broken \(stdio\): failed$/m);
    assert.match(result.stdout, /^ {2}the server exited with code 2/m);
    assert.match(result.stdout, /^ {2}no license$/m);
    assert.match(result.stderr, /MCP server\(s\) failed to start: broken/);
    const pid = Number(/demo \(stdio\): ready pid (\d+)/.exec(result.stdout)![1]);
    assert.throws(() => process.kill(pid, 0), "the server process is gone");
  });

  test("--json prints the servers; no servers configured is said plainly", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const none = await runCli(dirs, ["mcp"], { timeoutMs: 60_000 });
    assert.equal(none.code, 0, none.stderr);
    assert.match(
      none.stdout,
      /^No MCP servers configured \(add mcp_servers: to .*config\.yml\)\.$/m,
    );
    dirs.writeConfig(JSON.stringify({ mcp_servers: { demo: stdioServer() } }));
    const json = await runCli(dirs, ["mcp", "--json"], { timeoutMs: 60_000 });
    assert.equal(json.code, 0, json.stderr);
    const [demo] = JSON.parse(json.stdout);
    assert.equal(demo.name, "demo");
    assert.equal(demo.state, "ready");
    const add = demo.tools.find((tool: { name: string }) => tool.name === "demo.add");
    assert.equal(add.description, "Add two numbers");
    assert.deepEqual(add.parameters.required, ["a", "b"]);
  });

  test("a malformed mcp_servers entry exits 1 naming the key", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    dirs.writeConfig(JSON.stringify({ mcp_servers: { demo: { command: "srv", args: "x y" } } }));
    const result = await runCli(dirs, ["mcp"], { timeoutMs: 60_000 });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /mcp_servers\.demo\.args must be a list of strings, got "x y"/);
  });
});
