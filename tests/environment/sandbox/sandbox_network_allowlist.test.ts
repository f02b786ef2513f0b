/**
 * A sandbox whose network is a host allowlist, through the real sandboxed environment: a command
 * reaches an allowed host:port only through the egress proxy (HTTP_PROXY points at the relay
 * inside), another port of the same host is refused with the proxy's 403 line and never sees a
 * connection, and a direct connection has no route.
 */
import { after, before, describe, test } from "node:test";
import process from "node:process";
import assert from "node:assert/strict";
import { findExecutable } from "../../../src/_internal/find_executable.ts";
import { type Layout, layout, type Listener, listener, run, sandboxOf, SKIP } from "./_helpers.ts";

const NO_SOCAT = !SKIP && findExecutable("socat", { path: process.env.PATH ?? null }) === null
  ? "needs socat (apt-get install socat) for the relay inside the sandbox"
  : false;

/** A bash command that asks the proxy for a tunnel to `port` and prints what comes back. */
const tunnel = (port: number) =>
  `exec 3<>/dev/tcp/127.0.0.1/3128 && printf 'CONNECT 127.0.0.1:${port} HTTP/1.1\\r\\n\\r\\n' >&3 && timeout 5 cat <&3`;

describe("sandbox network allowlist", { skip: SKIP || NO_SOCAT }, () => {
  let dirs: Layout;
  let allowed: Listener;
  let other: Listener;
  before(async () => {
    dirs = layout();
    allowed = await listener();
    other = await listener();
  });
  after(async () => {
    await allowed[Symbol.asyncDispose]();
    await other[Symbol.asyncDispose]();
    dirs.remove();
  });

  test("an allowlisted host:port answers through the proxy; another port is refused with a 403 line", async () => {
    await using env = sandboxOf(dirs, { network: { allow: [`127.0.0.1:${allowed.port}`] } });
    const proxy = await run(env, "echo $HTTP_PROXY $HTTPS_PROXY");
    assert.equal(proxy.stdout, "http://127.0.0.1:3128 http://127.0.0.1:3128\n");
    const ok = await run(env, tunnel(allowed.port));
    assert.equal(ok.stdout, "HTTP/1.1 200 Connection Established\r\n\r\npong\n", ok.stderr);
    assert.equal(allowed.connections, 1);
    const refused = await run(env, tunnel(other.port));
    assert.match(refused.stdout, /^HTTP\/1\.1 403 Forbidden\r\n/);
    assert.match(refused.stdout, /127\.0\.0\.1:\d+ is not in sandbox_network's allowlist/);
    assert.equal(other.connections, 0, "the refused port saw no connection");
  });

  test("without the proxy there is no route, not even to the allowlisted host", async () => {
    await using env = sandboxOf(dirs, { network: { allow: [`127.0.0.1:${allowed.port}`] } });
    const before = allowed.connections;
    const direct = await run(env, `exec 3<>/dev/tcp/127.0.0.1/${allowed.port} && cat <&3`);
    assert.notEqual(direct.code, 0);
    assert.equal(allowed.connections, before);
  });
});
