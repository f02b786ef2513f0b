/**
 * The sandbox settings: values, typed errors naming the setting, and what the real `bub` does
 * when the sandbox is wanted but `bwrap` is missing (a loud warning, or with `required` a
 * refusal to start), and that `bub run` stays on the host under the default.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { BubError } from "../../../src/kernel/errors.ts";
import { loadSandboxSettings } from "../../../src/builtin/settings.ts";
import { parseSandboxPaths } from "../../../src/builtin/environment_hooks.ts";
import { sandboxNetworkOf } from "../../../src/builtin/_settings_specs.ts";
import { findExecutable } from "../../../src/_internal/find_executable.ts";
import { cleanupStack, runCli, type TempDirs, tempDirs } from "../../cli/_spawn.ts";
import { SKIP } from "./_helpers.ts";

function configError(sources: Parameters<typeof loadSandboxSettings>[0]): BubError {
  try {
    loadSandboxSettings(sources);
  } catch (error) {
    assert.ok(BubError.isInstance(error));
    return error as BubError;
  }
  throw new Error("expected a config error");
}

describe("sandbox settings", () => {
  test("defaults: remote, network off, no extra paths, bounded limits", () => {
    assert.deepEqual(loadSandboxSettings({ env: {} }), {
      sandbox: "remote",
      sandbox_network: "off",
      sandbox_paths: null,
      sandbox_cpu_seconds: 600,
      sandbox_memory_mb: 65536,
      sandbox_processes: 512,
      sandbox_file_mb: 1024,
    });
  });

  test("BUB_SANDBOX* and config keys set them; null lifts a limit", () => {
    const settings = loadSandboxSettings({
      env: { BUB_SANDBOX: "required", BUB_SANDBOX_NETWORK: "on", BUB_SANDBOX_PROCESSES: "null" },
      config: { sandbox_paths: ["/srv/data", "/srv/cache:rw"], sandbox_file_mb: 10 },
    });
    assert.equal(settings.sandbox, "required");
    assert.equal(settings.sandbox_network, "on");
    assert.equal(settings.sandbox_processes, null);
    assert.equal(settings.sandbox_file_mb, 10);
    assert.deepEqual(parseSandboxPaths(settings.sandbox_paths), {
      readOnly: ["/srv/data"],
      readWrite: ["/srv/cache"],
    });
  });

  test("a bad sandbox value is a config error naming the setting and the choices", () => {
    const error = configError({ env: { BUB_SANDBOX: "sometimes" } });
    assert.equal(error.kind, "config");
    assert.match(error.message, /sandbox must be one of off, remote, all, required/);
    assert.match(error.message, /"sometimes" \(from BUB_SANDBOX\)/);
  });

  test("sandbox_network takes off, on, or hosts as a YAML list, JSON or comma-separated text", () => {
    for (
      const value of [["example.com", "*.npmjs.org:443"], '["example.com","*.npmjs.org:443"]']
    ) {
      const { sandbox_network } = loadSandboxSettings({ config: { sandbox_network: value } });
      assert.deepEqual(sandboxNetworkOf(sandbox_network), {
        allow: ["example.com", "*.npmjs.org:443"],
      });
    }
    const fromEnv = loadSandboxSettings({
      env: { BUB_SANDBOX_NETWORK: "example.com, pypi.org" },
    }).sandbox_network;
    assert.deepEqual(sandboxNetworkOf(fromEnv), { allow: ["example.com", "pypi.org"] });
    assert.equal(sandboxNetworkOf("off"), "off");
    for (
      const [bad, why] of [["http://x.com/", "is not a host"], [[], "empty host list"], [
        3,
        "off, on, or a list",
      ]] as const
    ) {
      const error = configError({ config: { sandbox_network: bad } });
      assert.equal(error.kind, "config");
      assert.match(error.message, /sandbox_network/);
      assert.ok(error.message.includes(why), error.message);
    }
  });

  test("limits must be positive integers", () => {
    assert.match(
      configError({ env: { BUB_SANDBOX_MEMORY_MB: "0" } }).message,
      /sandbox_memory_mb must be greater than 0/,
    );
  });
});

/** A PATH holding only bash (no bwrap, no prlimit). */
function pathWithoutBwrap(dirs: TempDirs): string {
  const bin = join(dirs.tmp, "bin");
  mkdirSync(bin);
  symlinkSync(findExecutable("bash", { path: process.env.PATH ?? null })!, join(bin, "bash"));
  return bin;
}

describe("bub with the sandbox wanted but bwrap missing", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test("sandbox: required refuses to start, saying why and how to install it", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const result = await runCli(dirs, ["run", "--demo", ",echo hi"], {
      env: { BUB_SANDBOX: "required", PATH: pathWithoutBwrap(dirs) },
    });
    assert.notEqual(result.code, 0, result.stdout);
    assert.match(result.stderr, /sandbox is required but bwrap is not installed/);
    assert.match(result.stderr, /apt-get install bubblewrap/);
    assert.doesNotMatch(result.stdout, /hi/);
  });

  test("sandbox: all warns loudly once and runs the command unsandboxed", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const result = await runCli(dirs, ["run", "--demo", ",echo hi"], {
      env: { BUB_SANDBOX: "all", PATH: pathWithoutBwrap(dirs) },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /hi/);
    assert.equal(result.stderr.match(/SANDBOX UNAVAILABLE/g)?.length, 1, result.stderr);
    assert.match(result.stderr, /apt-get install bubblewrap/);
  });
});

describe("bub with the sandbox but no socat", { skip: SKIP }, () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test("warns loudly once that sandboxed sessions reach no host, and runs sandboxed", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    // Where sandboxed commands see them too: the workspace, and TMPDIR (the start-up probe's).
    const bins = [join(dirs.workspace, "bin"), join(dirs.tmp, "bin")];
    for (const bin of bins) {
      mkdirSync(bin);
      for (const name of ["bash", "bwrap", "prlimit", "true"]) {
        symlinkSync(findExecutable(name, { path: process.env.PATH ?? null })!, join(bin, name));
      }
    }
    dirs.writeConfig("model: planted-config-model\n");
    const probe = `,test -e ${dirs.configFile} && echo config-visible || echo config-hidden`;
    const result = await runCli(dirs, ["run", "--demo", probe], {
      env: { BUB_SANDBOX: "all", PATH: bins.join(":") },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /config-hidden/);
    assert.equal(result.stderr.match(/SANDBOX WITHOUT NETWORK/g)?.length, 1, result.stderr);
    assert.match(result.stderr, /apt-get install socat/);
    assert.doesNotMatch(result.stderr, /SANDBOX UNAVAILABLE/);
  });
});

describe("bub run under the default sandbox: remote", { skip: SKIP }, () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test("stays on the host, even with --channel telegram", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    dirs.writeConfig("model: x\n");
    const result = await runCli(dirs, [
      "run",
      "--demo",
      "--channel",
      "telegram",
      `,cat ${dirs.configFile}`,
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /model: x/);
  });
});
