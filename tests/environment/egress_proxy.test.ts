/**
 * The sandbox's egress proxy over its Unix socket (or a TCP port, for macOS), on every runtime: CONNECT and plain HTTP reach
 * only allowlisted hosts and ports (a refused target never sees a connection), hop-by-hop proxy
 * headers are not forwarded, bad and oversized requests get clear answers, bad allowlist
 * entries are typed config errors, and disposing closes open tunnels.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BubError } from "../../src/kernel/errors.ts";
import {
  allowedTarget,
  parseAllowlist,
  startEgressProxy,
} from "../../src/environment/egress_proxy.ts";
import { runtimeCommand } from "../cli/_spawn.ts";

/** A loopback TCP server; `seen` holds every byte each connection sent, `count` the connections. */
async function upstream(
  onData: (socket: Socket, text: string) => void,
): Promise<{ port: number; server: Server; seen: string[]; count: () => number }> {
  const seen: string[] = [];
  let count = 0;
  const server = createServer((socket) => {
    const index = count++;
    seen[index] = "";
    socket.on("error", () => {});
    socket.on("data", (chunk) => {
      seen[index] += chunk.toString("latin1");
      onData(socket, seen[index]!);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return { port, server, seen, count: () => count };
}

/**
 * Sends `text` on the proxy's socket (a TCP port of 127.0.0.1 when a number); resolves with what
 * came back once `until` matches or it closes.
 */
function ask(path: string | number, text: string, until?: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = typeof path === "number"
      ? createConnection({ port: path, host: "127.0.0.1" })
      : createConnection(path);
    let got = "";
    socket.on("data", (chunk) => {
      got += chunk.toString("latin1");
      if (until?.test(got)) {
        socket.destroy();
        resolve(got);
      }
    });
    socket.once("error", reject);
    socket.once("close", () => resolve(got));
    socket.write(text);
  });
}

async function withProxy(
  allow: string[],
  body: (socketPath: string, refused: string[]) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bub-egress-"));
  const refused: string[] = [];
  try {
    await using proxy = await startEgressProxy({
      allow,
      socketPath: join(dir, "proxy.sock"),
      onRefused: (target) => refused.push(target),
    });
    await body(proxy.socketPath, refused);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("sandbox egress proxy", () => {
  test("allowlist entries: exact host on web ports, one port, any port, subdomains only", () => {
    const rules = parseAllowlist([
      "Example.com.",
      "db.internal:5432",
      "any.test:*",
      "*.npmjs.org",
      "[::1]:8080",
    ]);
    assert.ok(allowedTarget(rules, "example.com", 443));
    assert.ok(allowedTarget(rules, "EXAMPLE.COM", 80));
    assert.ok(!allowedTarget(rules, "example.com", 22), "only 80/443 without a port");
    assert.ok(!allowedTarget(rules, "sub.example.com", 443), "a name is not its subdomains");
    assert.ok(allowedTarget(rules, "db.internal", 5432));
    assert.ok(!allowedTarget(rules, "db.internal", 443));
    assert.ok(allowedTarget(rules, "any.test", 65000));
    assert.ok(allowedTarget(rules, "registry.npmjs.org", 443));
    assert.ok(!allowedTarget(rules, "npmjs.org", 443), "*. means subdomains only");
    assert.ok(!allowedTarget(rules, "evilnpmjs.org", 443));
    assert.ok(allowedTarget(rules, "::1", 8080));
    assert.ok(!allowedTarget(rules, "127.0.0.1", 443));
  });

  test("a bad allowlist entry is a config error naming the setting and the entry", () => {
    for (const entry of ["", "*", "a*b.com", "host:0", "host:70000", "http://x.com/", "a b"]) {
      assert.throws(
        () => parseAllowlist([entry]),
        (error: unknown) =>
          BubError.isInstance(error) && error.kind === "config" &&
          error.message.startsWith("sandbox_network:") &&
          error.message.includes(JSON.stringify(entry)),
        entry,
      );
    }
  });

  test("CONNECT to an allowed host tunnels bytes both ways", async () => {
    const echo = await upstream((socket, text) => {
      if (text.endsWith("\n")) socket.write(`echo:${text}`);
    });
    try {
      await withProxy([`127.0.0.1:${echo.port}`], async (path) => {
        const got = await ask(
          path,
          `CONNECT 127.0.0.1:${echo.port} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nping\n`,
          /echo:ping\n$/,
        );
        assert.match(got, /^HTTP\/1\.1 200 Connection Established\r\n\r\necho:ping\n$/);
        assert.equal(echo.seen[0], "ping\n", "the tunnel carries only the client's bytes");
      });
    } finally {
      echo.server.close();
    }
  });

  test("CONNECT to a host or port outside the allowlist is refused and never reaches it", async () => {
    const target = await upstream(() => {});
    try {
      await withProxy(["example.com"], async (path, refused) => {
        const got = await ask(path, `CONNECT 127.0.0.1:${target.port} HTTP/1.1\r\n\r\n`);
        assert.match(got, /^HTTP\/1\.1 403 Forbidden\r\n/);
        assert.match(got, new RegExp(`127\\.0\\.0\\.1:${target.port} is not in sandbox_network`));
        const port = await ask(path, "CONNECT example.com:22 HTTP/1.1\r\n\r\n");
        assert.match(port, /^HTTP\/1\.1 403 /, "an allowed name on a port it does not allow");
        assert.deepEqual(refused, [`127.0.0.1:${target.port}`, "example.com:22"]);
      });
      assert.equal(target.count(), 0, "the refused target saw no connection");
    } finally {
      target.server.close();
    }
  });

  test("on a TCP port of 127.0.0.1 (the macOS sandbox's door) it tunnels and refuses alike", async () => {
    const echo = await upstream((socket, text) => {
      if (text.endsWith("\n")) socket.write(`echo:${text}`);
    });
    try {
      await using proxy = await startEgressProxy({
        allow: [`127.0.0.1:${echo.port}`],
        socketPath: { port: 0 },
      });
      assert.equal(proxy.socketPath, "");
      const port = proxy.port!;
      const got = await ask(port, `CONNECT 127.0.0.1:${echo.port} HTTP/1.1\r\n\r\nping\n`, /ping/);
      assert.match(got, /^HTTP\/1\.1 200 Connection Established\r\n\r\necho:ping\n$/);
      const refused = await ask(port, "CONNECT example.com:443 HTTP/1.1\r\n\r\n");
      assert.match(refused, /^HTTP\/1\.1 403 /);
    } finally {
      echo.server.close();
    }
  });

  test("a plain HTTP request is forwarded in origin form without the proxy's own headers", async () => {
    const web = await upstream((socket, text) => {
      if (text.includes("\r\n\r\n")) {
        socket.end("HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok");
      }
    });
    try {
      await withProxy([`localhost:${web.port}`, `127.0.0.1:${web.port}`], async (path) => {
        const got = await ask(
          path,
          `GET http://127.0.0.1:${web.port}/a/b?c=1 HTTP/1.1\r\nHost: 127.0.0.1:${web.port}\r\n` +
            `Proxy-Authorization: Basic c2VjcmV0\r\nProxy-Connection: keep-alive\r\n` +
            `Accept: */*\r\n\r\n`,
        );
        assert.match(got, /^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nok$/);
        const sent = web.seen[0]!;
        assert.match(sent, /^GET \/a\/b\?c=1 HTTP\/1\.1\r\n/);
        assert.match(sent, /\r\nAccept: \*\/\*\r\n/);
        assert.doesNotMatch(sent, /proxy-/i, "hop-by-hop proxy headers stay at the proxy");
      });
    } finally {
      web.server.close();
    }
  });

  test("bad, non-HTTP and oversized requests get clear answers", async () => {
    await withProxy(["example.com"], async (path) => {
      assert.match(
        await ask(path, "GET https://example.com/ HTTP/1.1\r\n\r\n"),
        /^HTTP\/1\.1 400 [\s\S]*https: is not proxied \(use CONNECT\)/,
      );
      assert.match(await ask(path, "HELLO\r\n\r\n"), /^HTTP\/1\.1 400 [\s\S]*not an HTTP\/1/);
      assert.match(
        await ask(path, "CONNECT example.com HTTP/1.1\r\n\r\n"),
        /^HTTP\/1\.1 400 [\s\S]*bad CONNECT target/,
      );
      assert.match(
        await ask(path, `GET http://example.com/ HTTP/1.1\r\nX: ${"a".repeat(20_000)}`),
        /^HTTP\/1\.1 431 /,
      );
    });
  });

  test("a socket left by a dead process is taken over; a live one is not", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bub-egress-"));
    const socketPath = join(dir, "p.sock");
    try {
      // A socket file nobody listens on, as a killed process leaves it: a child listens on
      // it, says so, and is SIGKILLed.
      const script = join(dir, "listen.mjs");
      writeFileSync(
        script,
        `import { createServer } from "node:net";\n` +
          `createServer().listen(${JSON.stringify(socketPath)}, () => console.log("up"));\n`,
      );
      const [file, ...args] = runtimeCommand(script);
      const child = spawn(file!, args, { stdio: ["ignore", "pipe", "inherit"] });
      await new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()));
      child.kill("SIGKILL");
      await new Promise<void>((resolve) => child.once("exit", () => resolve()));
      assert.ok(existsSync(socketPath), "the dead process left its socket");
      await using first = await startEgressProxy({ allow: ["example.com"], socketPath });
      assert.match(
        await ask(first.socketPath, "CONNECT other.test:443 HTTP/1.1\r\n\r\n"),
        /^HTTP\/1\.1 403 /,
      );
      await assert.rejects(
        startEgressProxy({ allow: ["example.com"], socketPath }),
        (error: unknown) =>
          BubError.isInstance(error) && error.kind === "config" &&
          error.message === `Another process serves ${socketPath}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("disposing the proxy closes the tunnels it holds open", async () => {
    const hold = await upstream(() => {});
    const dir = mkdtempSync(join(tmpdir(), "bub-egress-"));
    try {
      const proxy = await startEgressProxy({
        allow: [`127.0.0.1:${hold.port}`],
        socketPath: join(dir, "p.sock"),
      });
      const socket = createConnection(proxy.socketPath);
      socket.on("error", () => {});
      const established = new Promise<void>((resolve) =>
        socket.on("data", (chunk) => {
          if (chunk.toString().includes(" 200 ")) resolve();
        })
      );
      socket.write(`CONNECT 127.0.0.1:${hold.port} HTTP/1.1\r\n\r\n`);
      await established;
      const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
      await proxy[Symbol.asyncDispose]();
      await closed;
    } finally {
      hold.server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
