/**
 * Stdio MCP servers in the sandbox: under the default `sandbox: remote`, a process that serves
 * other people (`bub gateway`, `bub web`) starts its servers sandboxed, so a server asked to read
 * a planted `~/.ssh/id_ed25519` or `<BUB_HOME>/config.yml` gets nothing while its tools still
 * work; `sandbox: false` puts a server back on the host (and says so); a sandboxed server's
 * network is its own `network:` key.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { BubFramework } from "../../../src/builtin/framework.ts";
import type { BuiltinPlugin } from "../../../src/builtin/plugin.ts";
import { captureLogs } from "../../_helpers/log_capture.ts";
import { runtimeCommand } from "../../cli/_spawn.ts";
import {
  type Layout,
  layout,
  leaksNothing,
  listener,
  PLANTED,
  SKIP,
} from "../../environment/sandbox/_helpers.ts";

const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));

/** The `mcp_servers:` entry of the probe server, with `extra` keys. */
function probeServer(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const [command, ...args] = runtimeCommand(join(FIXTURES, "file_probe_server.mjs"));
  // The server's script lives in the repository, outside the workspace: shown read-only.
  return { command, args, paths: [FIXTURES], ...extra };
}

/** A running framework over `dirs` whose config (JSON is YAML) holds `config`. */
async function framework(
  dirs: Layout,
  config: Record<string, unknown>,
  options: { servesRemote?: boolean } = {},
) {
  writeFileSync(
    join(dirs.bubHome, "config.yml"),
    JSON.stringify({ api_key: PLANTED.config, ...config }),
  );
  const bub = new BubFramework({ home: dirs.bubHome, workspace: dirs.workspace });
  bub.loadBuiltinHooks();
  const builtin = bub.pluginManager.get("builtin") as BuiltinPlugin;
  if (options.servesRemote ?? true) builtin.markServesRemote(); // as `bub gateway` does
  const scope = await bub.running();
  const say = async (content: string): Promise<string> =>
    (await bub.processInbound({ channel: "web", chatId: "c1", content })).modelOutput;
  const status = (name: string) => builtin.runtime.mcp.status().find((s) => s.name === name);
  return { say, status, [Symbol.asyncDispose]: () => scope[Symbol.asyncDispose]() };
}

describe("stdio MCP servers in the sandbox", { skip: SKIP }, () => {
  let dirs: Layout;
  const savedHome = process.env.HOME;
  before(() => {
    dirs = layout();
    process.env.HOME = dirs.home; // the home holding the planted ~/.ssh key
    writeFileSync(join(dirs.workspace, "notes.txt"), "workspace notes");
  });
  after(() => {
    process.env.HOME = savedHome;
    dirs?.remove();
  });

  test("a gateway's server (sandbox: remote) reads nothing of ~/.ssh or BUB_HOME; its tools work", async () => {
    await using bub = await framework(dirs, { mcp_servers: { probe: probeServer() } });
    assert.equal(bub.status("probe")?.state, "ready", bub.status("probe")?.error ?? "");
    assert.equal(bub.status("probe")?.sandbox, "sandboxed, network off");
    const key = await bub.say(`,probe.read path=${join(dirs.home, ".ssh", "id_ed25519")}`);
    const config = await bub.say(`,probe.read path=${join(dirs.bubHome, "config.yml")}`);
    const tape = await bub.say(`,probe.read path=${join(dirs.bubHome, "tapes", "web__x.jsonl")}`);
    assert.ok(leaksNothing(key + config + tape), key + config + tape);
    assert.match(key, /cannot read .*ENOENT/);
    assert.match(config, /cannot read .*ENOENT/);
    assert.equal(
      await bub.say(`,probe.read path=${join(dirs.workspace, "notes.txt")}`),
      "workspace notes",
    );
  });

  test("sandbox: false runs the server on the host, loudly: it reads the planted key and config", async () => {
    await using logs = await captureLogs();
    await using bub = await framework(dirs, {
      mcp_servers: { probe: probeServer({ sandbox: false }) },
    });
    assert.equal(bub.status("probe")?.sandbox, "host");
    const key = await bub.say(`,probe.read path=${join(dirs.home, ".ssh", "id_ed25519")}`);
    const config = await bub.say(`,probe.read path=${join(dirs.bubHome, "config.yml")}`);
    assert.equal(key, PLANTED.sshKey);
    assert.match(config, new RegExp(PLANTED.config));
    assert.match(logs.warnings().join("\n"), /MCP SERVER probe RUNS UNSANDBOXED.*sandbox: false/);
  });

  test("sandbox: remote leaves the servers of a process serving only its user on the host", async () => {
    await using bub = await framework(dirs, { mcp_servers: { probe: probeServer() } }, {
      servesRemote: false,
    });
    assert.equal(bub.status("probe")?.sandbox, "host");
  });

  test("sandbox: all sandboxes every server; network: on reaches 127.0.0.1, the default off does not", async () => {
    await using port = await listener();
    await using bub = await framework(dirs, {
      sandbox: "all",
      mcp_servers: { closed: probeServer(), open: probeServer({ network: "on" }) },
    }, { servesRemote: false });
    assert.equal(bub.status("open")?.sandbox, "sandboxed, network on");
    assert.match(await bub.say(`,closed.connect port=${port.port}`), /^refused/);
    assert.equal(await bub.say(`,open.connect port=${port.port}`), "connected");
    const key = await bub.say(`,open.read path=${join(dirs.home, ".ssh", "id_ed25519")}`);
    assert.ok(leaksNothing(key), key);
  });
});

describe("the sandbox keys of a stdio server", () => {
  test("sandbox, network and paths are read; bad values are config errors naming the key", async () => {
    const { parseMcpServers } = await import("../../../src/tools/mcp/config.ts");
    const [server] = parseMcpServers({
      mcp_servers: {
        api: {
          command: "x",
          sandbox: true,
          network: ["api.example.com", "*.cdn.example.com:8443"],
          paths: ["/srv/data:rw"],
        },
      },
    });
    assert.ok(server?.transport === "stdio");
    assert.equal(server.sandbox, true);
    assert.deepEqual(server.network, ["api.example.com", "*.cdn.example.com:8443"]);
    assert.deepEqual(server.paths, ["/srv/data:rw"]);
    const bad = (value: Record<string, unknown>) => () =>
      parseMcpServers({ mcp_servers: { s: { command: "x", ...value } } });
    assert.throws(bad({ sandbox: "no" }), /mcp_servers\.s\.sandbox must be true or false/);
    assert.throws(bad({ network: "example.com/path" }), /mcp_servers\.s\.network has a bad host/);
    assert.throws(bad({ network: [] }), /mcp_servers\.s\.network must be off, on, or a list/);
    assert.throws(bad({ paths: "/srv" }), /mcp_servers\.s\.paths must be a list of paths/);
    assert.throws(
      () =>
        parseMcpServers({ mcp_servers: { h: { url: "http://127.0.0.1:1/mcp", sandbox: false } } }),
      /mcp_servers\.h\.sandbox is not a Streamable HTTP server key/,
    );
  });
});
