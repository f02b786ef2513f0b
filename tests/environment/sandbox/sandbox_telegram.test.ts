/**
 * A sandboxed Telegram session answers through the Bot API it is configured with: the telegram
 * skill's script, run with `$RUNTIME` as the skill tells the model, reaches exactly that host and
 * port through the egress proxy (the runtime binary is bound in, Node gets NODE_USE_ENV_PROXY, a
 * host NO_PROXY naming 127.0.0.1 does not send it around the proxy), while every other loopback
 * port stays unreachable and a session of another channel gets no such door.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import process from "node:process";
import { botApiHost, createEnvironmentHooks } from "../../../src/builtin/environment_hooks.ts";
import { findExecutable } from "../../../src/_internal/find_executable.ts";
import { noProxyFor } from "../../../src/environment/_no_proxy.ts";
import { ShellManager } from "../../../src/environment/shell_manager.ts";
import { BubError } from "../../../src/kernel/errors.ts";
import { currentRuntimeCommand, renderSkillBody } from "../../../src/skills/body.ts";
import { defaultBuiltinSkillDirs, discoverSkills } from "../../../src/skills/discovery.ts";
import { getConfigValue, loadSandboxSettings } from "../../../src/builtin/settings.ts";
import { FakeTelegramServer } from "../../../src/testing/fake_telegram.ts";
import { type Layout, layout, type Listener, listener, run, SKIP } from "./_helpers.ts";

const NO_SOCAT = !SKIP && findExecutable("socat", { path: process.env.PATH ?? null }) === null
  ? "needs socat (apt-get install socat) for the relay inside the sandbox"
  : false;

const SCRIPT = join(defaultBuiltinSkillDirs()[0]!, "telegram", "scripts", "telegram.ts");

describe("a sandboxed Telegram session and its Bot API", { skip: SKIP || NO_SOCAT }, () => {
  let dirs: Layout;
  let telegram: FakeTelegramServer;
  let other: Listener;
  const saved = { NO_PROXY: process.env.NO_PROXY, no_proxy: process.env.no_proxy };
  before(async () => {
    dirs = layout();
    telegram = await FakeTelegramServer.start();
    other = await listener();
    // As on many hosts and CI runners: loopback is never proxied.
    process.env.NO_PROXY = process.env.no_proxy = "localhost,127.0.0.1";
  });
  after(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await other[Symbol.asyncDispose]();
    await telegram.close();
    dirs.remove();
  });

  /** The environment the builtin hooks give `sessionId` with `sandbox: remote`, network off. */
  function sessionEnv(sessionId: string) {
    const hooks = createEnvironmentHooks({
      shells: new ShellManager(),
      sandbox: () => loadSandboxSettings({ env: {}, config: { sandbox: "remote" } }),
      hiddenPaths: () => [dirs.bubHome],
      telegramApiRoot: () => telegram.apiRoot,
    });
    return hooks.provideEnvironment({ sessionId, workspace: dirs.workspace });
  }

  /** The skill's send command, with the runtime executing these tests as `$RUNTIME`. */
  const send = (text: string) =>
    `${currentRuntimeCommand()} ${SCRIPT} send --api-root ${telegram.apiRoot} ` +
    `--token '${telegram.token}' --chat-id 1001 --format plain '${text}'`;

  test("the skill script of a Telegram session delivers through the configured Bot API", async () => {
    await using env = sessionEnv("telegram:1001");
    const result = await run(env, send("hello from the sandbox"));
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^\{"ok":true,"message_ids":\[\d+\]\}\n$/);
    const sent = telegram.callsOf("sendMessage").map((call) => String(call.params.text));
    assert.ok(sent.includes("hello from the sandbox"), JSON.stringify(sent));
  });

  test("the skill's own send command, with api_root only in config.yml, answers through it", async () => {
    const [skill] = discoverSkills({ workspace: dirs.workspace }).filter((s) =>
      s.name === "telegram"
    );
    assert.ok(skill, "the builtin telegram skill is found");
    // No BUB_TELEGRAM_* variable anywhere: the command must carry the configured Bot API itself.
    const sources = {
      env: {},
      config: { telegram: { token: telegram.token, api_root: telegram.apiRoot } },
    };
    const body = renderSkillBody(skill, { config: (path) => getConfigValue(path, sources) });
    const block = /## Sending\s+```bash\n([\s\S]*?)```/.exec(body)?.[1];
    assert.ok(block, body);
    const command = block.replaceAll("<chat_id>", "1001").replaceAll("<message_id>", "7");
    await using env = sessionEnv("telegram:1001");
    const result = await run(env, command);
    assert.equal(result.code, 0, result.stderr);
    const sent = telegram.callsOf("sendMessage").at(-1);
    assert.match(String(sent?.params.text), /The report is in/);
  });

  test("the same session's commands reach no other loopback port, through the proxy or not", async () => {
    await using env = sessionEnv("telegram:1001");
    const viaProxy = await run(
      env,
      `exec 3<>/dev/tcp/127.0.0.1/3128 && printf 'CONNECT 127.0.0.1:${other.port} HTTP/1.1\\r\\n\\r\\n' >&3 && timeout 5 cat <&3`,
    );
    assert.match(viaProxy.stdout, /^HTTP\/1\.1 403 Forbidden\r\n/);
    const fetched = await run(
      env,
      `${currentRuntimeCommand()} ${SCRIPT} send --api-root http://127.0.0.1:${other.port} ` +
        `--token t --chat-id 1 x`,
    );
    assert.equal(fetched.code, 1);
    const direct = await run(env, `exec 3<>/dev/tcp/127.0.0.1/${other.port} && cat <&3`);
    assert.notEqual(direct.code, 0);
    const named = await run(
      env,
      `exec 3<>/dev/tcp/127.0.0.1/3128 && printf 'CONNECT localhost:${other.port} HTTP/1.1\\r\\n\\r\\n' >&3 && timeout 5 cat <&3`,
    );
    assert.match(named.stdout, /^HTTP\/1\.1 403 Forbidden\r\n/);
    assert.equal(other.connections, 0, "the other port saw no connection");
  });

  test("a web console session with the same settings cannot reach the Bot API", async () => {
    const before = telegram.callsOf("sendMessage").length;
    await using env = sessionEnv("web:alice");
    const result = await run(env, send("from the web session"));
    assert.equal(result.code, 1);
    assert.equal(telegram.callsOf("sendMessage").length, before);
  });
});

describe("the Bot API host of a Telegram session's allowlist", () => {
  test("is the api_root's host and port, api.telegram.org:443 by default", () => {
    assert.equal(botApiHost(null), "api.telegram.org:443");
    assert.equal(botApiHost(""), "api.telegram.org:443");
    assert.equal(botApiHost("http://127.0.0.1:8081/"), "127.0.0.1:8081");
    assert.equal(botApiHost("https://bots.example.org/prefix"), "bots.example.org:443");
    assert.equal(botApiHost("http://bots.example.org"), "bots.example.org:80");
  });

  test("an api_root that is not an http(s) URL is a config error naming the setting", () => {
    for (const bad of ["not a url", "ftp://example.org"]) {
      assert.throws(
        () => botApiHost(bad),
        (error) =>
          error instanceof BubError && error.kind === "config" &&
          /telegram\.api_root/.test(error.message),
      );
    }
  });
});

describe("NO_PROXY inside an allowlist sandbox", () => {
  test("loses the entries that would bypass the proxy for an allowlisted host, keeps the rest", () => {
    assert.equal(noProxyFor("localhost,127.0.0.1,.corp", ["127.0.0.1:8081"]), ".corp");
    assert.equal(noProxyFor("::1,[::1],127.0.0.0/8", ["localhost:8081"]), undefined);
    assert.equal(noProxyFor("*", ["api.telegram.org:443"]), undefined);
    assert.equal(noProxyFor(".telegram.org,example.com", ["api.telegram.org:443"]), "example.com");
    assert.equal(
      noProxyFor("localhost,127.0.0.1", ["api.telegram.org:443"]),
      "localhost,127.0.0.1",
    );
    assert.equal(noProxyFor(undefined, ["api.telegram.org"]), undefined);
  });
});
