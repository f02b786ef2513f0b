/**
 * `telegram.proxy` inside the sandbox: a sandboxed Telegram session's egress proxy reaches the
 * Bot API through the configured upstream HTTP proxy (a CONNECT tunnel, with its credentials),
 * so the telegram skill's script answers where the channel does; with the upstream proxy down the
 * script fails instead of going around it, and other allowlisted hosts still go direct.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import process from "node:process";
import { createEnvironmentHooks } from "../../../src/builtin/environment_hooks.ts";
import { loadSandboxSettings } from "../../../src/builtin/settings.ts";
import { findExecutable } from "../../../src/_internal/find_executable.ts";
import { ShellManager } from "../../../src/environment/shell_manager.ts";
import { currentRuntimeCommand } from "../../../src/skills/body.ts";
import { defaultBuiltinSkillDirs } from "../../../src/skills/discovery.ts";
import { FakeTelegramServer } from "../../../src/testing/fake_telegram.ts";
import { type Layout, layout, type Listener, listener, run, SKIP } from "./_helpers.ts";

const NO_SOCAT = !SKIP && findExecutable("socat", { path: process.env.PATH ?? null }) === null
  ? "needs socat (apt-get install socat) for the relay inside the sandbox"
  : false;

const SCRIPT = join(defaultBuiltinSkillDirs()[0]!, "telegram", "scripts", "telegram.ts");

/** A local HTTP CONNECT proxy that wants `user:secret` and records what it was asked. */
interface UpstreamProxy extends AsyncDisposable {
  url: string;
  port: number;
  connects: string[];
  refused: number;
}

async function upstreamProxy(): Promise<UpstreamProxy> {
  const sockets = new Set<Socket>();
  const state = { url: "", port: 0, connects: [] as string[], refused: 0 };
  const server: Server = createServer((_request, response) => response.writeHead(405).end());
  server.on("connect", (request: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    const expected = `Basic ${Buffer.from("user:secret").toString("base64")}`;
    if (request.headers["proxy-authorization"] !== expected) {
      state.refused++;
      client.end("HTTP/1.1 407 Proxy Authentication Required\r\n\r\n");
      return;
    }
    state.connects.push(request.url ?? "");
    const [host, port] = (request.url ?? "").split(":");
    const target = connect({ host, port: Number(port) }, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) target.write(head);
      client.pipe(target);
      target.pipe(client);
    });
    sockets.add(target);
    target.on("error", () => client.destroy());
    client.on("error", () => target.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.port = (server.address() as { port: number }).port;
  state.url = `http://user:secret@127.0.0.1:${state.port}`;
  return Object.assign(state, {
    [Symbol.asyncDispose]: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}

describe("telegram.proxy in a sandboxed Telegram session", { skip: SKIP || NO_SOCAT }, () => {
  let dirs: Layout;
  let telegram: FakeTelegramServer;
  let proxy: UpstreamProxy;
  let other: Listener;
  before(async () => {
    dirs = layout();
    telegram = await FakeTelegramServer.start();
    proxy = await upstreamProxy();
    other = await listener();
  });
  after(async () => {
    await proxy[Symbol.asyncDispose]();
    await other[Symbol.asyncDispose]();
    await telegram.close();
    dirs.remove();
  });

  /** A Telegram session's environment as the builtin hooks give it, with `telegram.proxy`. */
  function sessionEnv(upstream: string, network = "off") {
    const hooks = createEnvironmentHooks({
      shells: new ShellManager(),
      sandbox: () =>
        loadSandboxSettings({ env: {}, config: { sandbox: "remote", sandbox_network: network } }),
      hiddenPaths: () => [dirs.bubHome],
      telegramApiRoot: () => telegram.apiRoot,
      telegramProxy: () => upstream,
    });
    return hooks.provideEnvironment({ sessionId: "telegram:1001", workspace: dirs.workspace });
  }

  const send = (text: string) =>
    `${currentRuntimeCommand()} ${SCRIPT} send --api-root ${telegram.apiRoot} ` +
    `--token '${telegram.token}' --chat-id 1001 --format plain '${text}'`;

  test("the skill script's Bot API calls go through the upstream proxy", async () => {
    const before = proxy.connects.length;
    await using env = sessionEnv(proxy.url);
    const result = await run(env, send("through the proxy"));
    assert.equal(result.code, 0, result.stderr);
    const sent = telegram.callsOf("sendMessage").map((call) => String(call.params.text));
    assert.ok(sent.includes("through the proxy"), JSON.stringify(sent));
    const host = new URL(telegram.apiRoot).host;
    assert.ok(proxy.connects.slice(before).includes(host), JSON.stringify(proxy.connects));
  });

  test("a CONNECT from inside is chained too; another allowlisted host goes direct", async () => {
    const before = proxy.connects.length;
    await using env = sessionEnv(proxy.url, `127.0.0.1:${other.port}`);
    const host = new URL(telegram.apiRoot).host;
    const tunnelled = await run(
      env,
      `curl -sS -p -x http://127.0.0.1:3128 -o /dev/null -w '%{http_code}' ` +
        `http://${host}/bot${telegram.token}/getMe`,
    );
    assert.equal(tunnelled.stdout, "200", tunnelled.stderr);
    const direct = await run(
      env,
      `exec 3<>/dev/tcp/127.0.0.1/3128 && printf 'CONNECT 127.0.0.1:${other.port} HTTP/1.1\\r\\n\\r\\n' >&3 && timeout 5 cat <&3`,
    );
    assert.match(direct.stdout, /^HTTP\/1\.1 200 Connection Established\r\n\r\npong\n$/);
    assert.deepEqual(proxy.connects.slice(before), [host]);
  });

  test("with the upstream proxy refusing or down, the Bot API is not reached around it", async () => {
    const calls = telegram.callsOf("sendMessage").length;
    const refused = proxy.refused;
    await using wrong = sessionEnv(`http://user:wrong@127.0.0.1:${proxy.port}`);
    const denied = await run(wrong, send("should not arrive"));
    assert.notEqual(denied.code, 0);
    assert.equal(proxy.refused, refused + 1);
    await using down = sessionEnv("http://127.0.0.1:9"); // nothing listens on the discard port
    const failed = await run(down, send("should not arrive either"));
    assert.notEqual(failed.code, 0);
    assert.equal(telegram.callsOf("sendMessage").length, calls);
  });
});
