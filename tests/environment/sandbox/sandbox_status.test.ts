/**
 * `bub sandbox status` through the real `bub`: whether bwrap works, which sessions the setting
 * covers and why, and the effective profile (paths, network with a Telegram session's Bot API,
 * limits) from the settings; `required` without bwrap exits 1 like `bub` itself would refuse.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { findExecutable } from "../../../src/_internal/find_executable.ts";
import { sandboxMemoryBound } from "../../../src/environment/sandbox_probe.ts";
import { cleanupStack, runCli, tempDirs } from "../../cli/_spawn.ts";
import { SKIP } from "./_helpers.ts";

describe("bub sandbox status", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test("prints the default remote profile of a Telegram session, its Bot API and limits", {
    skip: SKIP,
  }, async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    dirs.writeConfig(
      "sandbox_network: [pypi.org]\nsandbox_cpu_seconds: 42\ntelegram:\n  api_root: http://127.0.0.1:8081\n" +
        "mcp_servers:\n  files:\n    command: files-server\n  api:\n    command: api-server\n" +
        "    network: [api.example.com]\n  local:\n    command: local-server\n    sandbox: false\n",
    );
    const result = await runCli(dirs, ["sandbox", "status", "--session", "telegram:7"]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^sandbox: remote$/m);
    assert.match(result.stdout, /^bwrap: works$/m);
    assert.match(result.stdout, /^session telegram:7: sandboxed \(sandbox: remote sandboxes/m);
    assert.match(result.stdout, /only pypi\.org, 127\.0\.0\.1:8081 \(through the egress proxy\)/);
    assert.match(result.stdout, /cpu 42 s \(sandbox_cpu_seconds\)/);
    assert.match(
      result.stdout,
      /^mcp server files: sandboxed, network only pypi\.org \(through the egress proxy\) in bub gateway and bub web; on the host in bub chat/m,
    );
    assert.match(result.stdout, /^mcp server api: sandboxed, network only api\.example\.com /m);
    assert.match(result.stdout, /^mcp server local: on the host \(sandbox: false\)$/m);
    // Which bound sandbox_memory_mb sets here: a memory cgroup, else RLIMIT_AS (and why).
    const bound = sandboxMemoryBound();
    assert.match(
      result.stdout,
      bound.kind === "rlimit"
        ? /address space 65536 MiB per process \(sandbox_memory_mb; RLIMIT_AS, not resident/
        : new RegExp(
          `memory 65536 MiB for the session's processes together \\(sandbox_memory_mb; ${bound.kind} ${bound.file}\\)`,
        ),
    );
    assert.ok(result.stdout.includes(`hidden (Bub's home: config, tapes, logs): ${dirs.bubHome}`));
  });

  test("a web session gets no Bot API; a terminal session is not sandboxed, and says why", {
    skip: SKIP,
  }, async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const web = await runCli(dirs, ["sandbox", "status", "--session", "web:x", "--json"]);
    assert.equal(web.code, 0, web.stderr);
    const data = JSON.parse(web.stdout);
    assert.equal(data.sandboxed, true);
    assert.equal(data.profile.network, "off");
    assert.equal(data.profile.limits.processes, 512);
    assert.deepEqual(data.memory_bound, sandboxMemoryBound());
    const cli = await runCli(dirs, ["sandbox", "status", "--session", "cli:local"]);
    assert.match(cli.stdout, /session cli:local: not sandboxed \(sandbox: remote leaves the local/);
  });

  test("sandbox: required without bwrap says why and exits 1", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const bin = join(dirs.tmp, "bin");
    mkdirSync(bin);
    symlinkSync(findExecutable("bash", { path: process.env.PATH ?? null })!, join(bin, "bash"));
    const result = await runCli(dirs, ["sandbox", "status"], {
      env: { BUB_SANDBOX: "required", PATH: bin },
    });
    assert.equal(result.code, 1);
    assert.match(result.stdout, /^bwrap: unavailable: bwrap is not installed/m);
    assert.match(result.stderr, /sandbox is required but bwrap is not installed/);
  });
});
