/**
 * MCP servers configured under `mcp_servers:`: a stdio server (a real child process speaking the
 * SDK's stdio server) and a Streamable HTTP server on 127.0.0.1 are started by `running()`, their
 * tools are offered to the mock model and called by it and by comma commands, a server that
 * crashes at start is logged with its stderr and leaves the others working, and closing the
 * scope leaves no server process (nor a process the server started).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { mockReply } from "../../../src/testing/mock_llm_server.ts";
import { stdioServer } from "./_stdio_config.ts";
import { type TurnFixture, turnFixture } from "../../agent/_turn_fixture.ts";
import { captureLogs, type LogCapture } from "../../_helpers/log_capture.ts";
import { type HttpMcpServer, PIXEL_PNG, startHttpMcpServer } from "./_mcp_server.ts";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function offered(body: Record<string, unknown>): Map<string, Record<string, unknown>> {
  const tools = (body.tools ?? []) as {
    function: { name: string; parameters: Record<string, unknown> };
  }[];
  return new Map(tools.map((tool) => [tool.function.name, tool.function.parameters]));
}

describe("MCP servers", () => {
  let http: HttpMcpServer;
  before(async () => {
    http = await startHttpMcpServer();
  });
  after(async () => {
    await http[Symbol.asyncDispose]();
  });

  async function fixture(
    script: Parameters<typeof turnFixture>[0] extends infer O
      ? O extends { script?: infer S } ? S : never
      : never,
    extra: Record<string, unknown> = {},
    env: Record<string, string> = {},
  ): Promise<TurnFixture> {
    return await turnFixture({
      script,
      env: { WEB_TOKEN: "t-123", ...env },
      config: {
        mcp_servers: {
          demo: stdioServer(),
          web: { url: http.url, headers: { Authorization: "Bearer ${WEB_TOKEN}" } },
          ...extra,
        },
      },
    });
  }

  test("the model is offered both servers' tools with their schemas and calls them; errors reach it", async () => {
    await using fx = await fixture([
      mockReply.toolCall("demo_add", { a: 2, b: 3 }, { id: "c1" }),
      mockReply.toolCall("web_add", { a: 40, b: 2 }, { id: "c2" }),
      mockReply.toolCall("demo_fail", { reason: "nope" }, { id: "c3" }),
      { text: "done" },
    ]);
    const result = await fx.turn("add things");
    assert.equal(result.modelOutput, "done");
    const bodies = fx.bodies();
    const tools = offered(bodies[0]!);
    for (const name of ["demo_add", "demo_fail", "web_add", "web_picture", "bash"]) {
      assert.ok(tools.has(name), `${name} offered: ${[...tools.keys()]}`);
    }
    const add = tools.get("demo_add")!;
    assert.equal(add.type, "object");
    assert.deepEqual(Object.keys(add.properties as object), ["a", "b"]);
    assert.deepEqual(add.required, ["a", "b"]);
    assert.match(JSON.stringify(bodies[1]!.messages), /"content":"5"/);
    assert.match(JSON.stringify(bodies[2]!.messages), /"content":"42"/);
    const last = JSON.stringify(bodies[3]!.messages);
    assert.match(last, /Tool 'demo.fail' failed: refused: nope/);
    assert.ok(
      http.headers.some((headers) => headers.authorization === "Bearer t-123"),
      "${WEB_TOKEN} expanded in the HTTP headers",
    );
    const system = JSON.stringify(bodies[0]!.messages);
    assert.match(system, /demo_add\(a, b\): Add two numbers/);
  });

  test("comma commands call MCP tools by runtime name, and ,help lists them", async () => {
    await using fx = await fixture([]);
    assert.equal((await fx.turn(",demo.add a=2 b=3")).modelOutput, "5");
    assert.equal((await fx.turn(",web.add 7 8")).modelOutput, "15");
    const picture = JSON.parse((await fx.turn(",web.picture")).modelOutput);
    assert.deepEqual(picture, {
      text: "a pixel",
      media: [{ type: "image", mimeType: "image/png", url: `data:image/png;base64,${PIXEL_PNG}` }],
    });
    await assert.rejects(fx.turn(",demo.fail reason=why"), /Tool 'demo.fail' failed: refused: why/);
    const help = (await fx.turn(",help")).modelOutput;
    assert.match(help, /Tools of MCP servers:\n(.|\n)*,demo\.add\(a, b\): Add two numbers/);
    assert.match(help, /,web\.fail\(reason\): Always fails/);
  });

  test("a server that crashes at start is logged with its stderr; the other servers work", async () => {
    await using logs: LogCapture = await captureLogs();
    await using fx = await fixture([], {
      broken: { command: "sh", args: ["-c", "echo 'fatal: no database' >&2; exit 3"] },
      missing: { command: "/nonexistent/mcp-server" },
      mute: { command: "sleep", args: ["30"], startup_timeout_seconds: 0.5 },
      down: { url: "http://127.0.0.1:1/mcp" },
    });
    const status = fx.builtin.runtime.mcp.status();
    const byName = new Map(status.map((server) => [server.name, server]));
    assert.equal(byName.get("broken")!.state, "failed");
    assert.match(byName.get("broken")!.error!, /fatal: no database/);
    assert.equal(byName.get("missing")!.state, "failed");
    assert.match(byName.get("mute")!.error!, /Request timed out/);
    assert.equal(byName.get("down")!.state, "failed");
    assert.equal(byName.get("demo")!.state, "ready");
    assert.equal(byName.get("web")!.state, "ready");
    assert.ok(!fx.builtin.runtime.registry.names().some((name) => name.startsWith("broken.")));
    assert.equal((await fx.turn(",demo.add a=1 b=1")).modelOutput, "2");
    const errors = logs.warnings().join("\n");
    assert.match(errors, /MCP server 'broken' failed to start: the server exited with code 3/);
    assert.match(errors, /stderr:\nfatal: no database/);
    assert.match(errors, /MCP server 'missing' failed to start/);
  });

  test("closing the scope ends the stdio server and the processes it started", async () => {
    const fx = await fixture([]);
    let serverPid = 0;
    let grandchild = 0;
    try {
      serverPid = fx.builtin.runtime.mcp.status().find((s) => s.name === "demo")!.pid!;
      assert.ok(serverPid > 0 && alive(serverPid));
      grandchild = Number((await fx.turn(",demo.grandchild")).modelOutput);
      assert.ok(grandchild > 0 && alive(grandchild), "the server started a sleep");
    } finally {
      await fx[Symbol.asyncDispose]();
    }
    assert.equal(alive(serverPid), false, "server process gone");
    await until(() => !alive(grandchild), "the grandchild to end", 3000);
    assert.deepEqual(fx.builtin.runtime.mcp.status(), []);
    assert.ok(!fx.builtin.runtime.registry.names().some((name) => name.startsWith("demo.")));
  });

  test("a server that exits mid-session loses its tools and is logged with its stderr", async () => {
    await using logs: LogCapture = await captureLogs();
    await using fx = await fixture([]);
    const registry = fx.builtin.runtime.registry;
    assert.ok(registry.has("demo.add"));
    await fx.turn(",demo.exit").catch(() => {});
    await until(() => !registry.has("demo.add"), "demo.add to go");
    const demo = fx.builtin.runtime.mcp.status().find((server) => server.name === "demo")!;
    assert.equal(demo.state, "failed");
    assert.match(
      demo.error!,
      /the server closed the connection\nstderr:\n(.|\n)*bye from the test server/,
    );
    assert.match(logs.warnings().join("\n"), /MCP server demo went away/);
    assert.ok(registry.has("web.add"), "the other server's tools stay");
  });

  test("tools/list_changed refreshes the tools", async () => {
    await using fx = await fixture([]);
    const registry = fx.builtin.runtime.registry;
    assert.equal(registry.has("demo.hello"), false);
    assert.equal((await fx.turn(",demo.learn name=hello")).modelOutput, "learned hello");
    await until(() => registry.has("demo.hello"), "demo.hello to appear");
    assert.equal((await fx.turn(",demo.hello")).modelOutput, "hello");
  });

  test("a call past the timeout fails with a clear error; the turn's signal cancels a call", async () => {
    await using fx = await fixture([], {}, { BUB_MCP_TIMEOUT_SECONDS: "0.3" });
    const started = Date.now();
    await assert.rejects(fx.turn(",web.slow ms=5000"), /Tool 'web.slow' timed out after 0.3 s/);
    assert.ok(Date.now() - started < 3000);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("stop")), 200);
    const cancelledAt = Date.now();
    await assert.rejects(fx.turn(",demo.slow ms=5000", { signal: controller.signal }));
    assert.ok(Date.now() - cancelledAt < 3000, "cancelled promptly");
    assert.equal((await fx.turn(",demo.add a=4 b=4")).modelOutput, "8", "the server still answers");
  });
});
