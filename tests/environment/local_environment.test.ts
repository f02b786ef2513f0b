import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { chmod, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { BubError } from "../../src/kernel/errors.ts";
import { LocalEnvironment } from "../../src/environment/local_environment.ts";
import type { LocalProcess } from "../../src/environment/local_process.ts";
import { createDenoDriver, denoCommandAvailable } from "../../src/environment/deno_driver.ts";
import type { ProcessDriver } from "../../src/environment/process_driver.ts";
import {
  drivers,
  eventually,
  groupAlive,
  killGroup,
  liveMembers,
  readAll,
  withTempDir,
} from "./_helpers.ts";

const encoder = new TextEncoder();

// On Deno also the driver without `setsid` (as on macOS): children start with `detached: true`.
const cases: [string, ProcessDriver][] = drivers().map((driver) => [driver.name, driver]);
if (denoCommandAvailable()) cases.push(["deno without setsid", createDenoDriver({ setsid: null })]);

for (const [label, driver] of cases) {
  describe(`LocalEnvironment spawn (${label} driver)`, () => {
    const env = new LocalEnvironment(null, { driver });

    async function run(command: string | string[], opts = {}): Promise<[string, number]> {
      const proc = await env.spawn(command, opts);
      proc.closeStdin();
      const [out, code] = await Promise.all([readAll(proc.stdout), proc.wait()]);
      await readAll(proc.stderr);
      return [out, code];
    }

    test("a string command runs through the shell; an array runs directly", async () => {
      assert.deepEqual(await run("echo $((1 + 2))"), ["3\n", 0]);
      assert.deepEqual(await run(["echo", "$HOME", "a  b"]), ["$HOME a  b\n", 0]);
    });

    test("the exit code is reported by wait() and returncode", async () => {
      const proc = await env.spawn("exit 7");
      assert.equal(proc.returncode, null);
      assert.equal(await proc.wait(), 7);
      assert.equal(proc.returncode, 7);
    });

    test("env adds variables to the parent's environment", async () => {
      const [out] = await run('echo "$BUB_ENV_TEST:${PATH:+has-path}"', {
        env: { BUB_ENV_TEST: "x" },
      });
      assert.equal(out, "x:has-path\n");
    });

    test("stdin is piped: written bytes reach the process and closeStdin gives end-of-file", async () => {
      const proc = await env.spawn(["cat"]);
      await proc.writeStdin(encoder.encode("hello "));
      await proc.writeStdin(encoder.encode("world"));
      proc.closeStdin();
      assert.equal(await readAll(proc.stdout), "hello world");
      assert.equal(await proc.wait(), 0);
    });

    test("cwd defaults to the workspace and opts.cwd overrides it", async () => {
      await withTempDir(async (dir) => {
        const real = await realpath(dir);
        const inWorkspace = new LocalEnvironment(real, { driver });
        const proc = await inWorkspace.spawn("pwd");
        assert.equal(await readAll(proc.stdout), `${real}\n`);
        const other = await inWorkspace.spawn("pwd", { cwd: "/" });
        assert.equal(await readAll(other.stdout), "/\n");
      });
    });

    test("the process leads its own process group and signal() stops every member", async () => {
      const proc = await env.spawn("sleep 300 & sleep 300");
      try {
        // Through `setsid` (Deno) the group forms a moment after the spawn returns.
        await eventually(() => groupAlive(proc.pid), 2000, "the group");
        assert.notEqual(proc.pid, process.pid);
        await eventually(() => liveMembers(proc.pid).length >= 2, 2000, "both sleeps");
        proc.signal({ kill: false });
        assert.equal(await proc.wait(), 143);
        await eventually(() => liveMembers(proc.pid).length === 0, 10_000, "group exit");
        await eventually(() => !proc.isRunning(), 5000, "group reaped");
        proc.signal({ kill: false });
        proc.signal({ kill: true });
      } finally {
        killGroup(proc.pid);
      }
    });

    test("signal() right after the spawn stops the process and leaves no member", async () => {
      for (const kill of [true, false]) {
        const proc = await env.spawn("sleep 300 & sleep 300");
        try {
          assert.equal(proc.isRunning(), true);
          proc.signal({ kill });
          assert.equal(await proc.wait(), kill ? 137 : 143);
          await eventually(() => liveMembers(proc.pid).length === 0, 10_000, "group exit");
          await eventually(() => !proc.isRunning(), 5000, "group reaped");
        } finally {
          killGroup(proc.pid);
        }
      }
    });

    test("an array command may name an executable by a path relative to cwd", async () => {
      await withTempDir(async (dir) => {
        await writeFile(join(dir, "hello.sh"), '#!/bin/sh\necho "hello $1"\n');
        await chmod(join(dir, "hello.sh"), 0o755);
        assert.deepEqual(await run(["./hello.sh", "there"], { cwd: dir }), ["hello there\n", 0]);
      });
    });

    test("isRunning() stays true while a background child outlives the shell", async () => {
      const proc = await env.spawn("sleep 300 >/dev/null 2>&1 & echo started");
      try {
        assert.equal(await readAll(proc.stdout), "started\n");
        assert.equal(await proc.wait(), 0);
        assert.equal(proc.isRunning(), true);
        proc.signal({ kill: true });
        await eventually(() => !proc.isRunning(), 5000, "group exit");
      } finally {
        killGroup(proc.pid);
      }
    });

    test("wait() returns while a grandchild still holds the output pipe", async () => {
      const proc: LocalProcess = await env.spawn("sleep 300 & echo hi");
      try {
        assert.equal(await proc.wait(), 0);
        assert.equal(groupAlive(proc.pid), true);
      } finally {
        proc.signal({ kill: true });
        await readAll(proc.stdout);
        await readAll(proc.stderr);
      }
      await eventually(() => liveMembers(proc.pid).length === 0, 10_000, "group exit");
    });

    test("aborting opts.signal kills the whole group", async () => {
      const controller = new AbortController();
      const proc = await env.spawn("sleep 300 & sleep 300", { signal: controller.signal });
      try {
        controller.abort();
        assert.equal(await proc.wait(), 137);
        await eventually(() => liveMembers(proc.pid).length === 0, 10_000, "group exit");
      } finally {
        killGroup(proc.pid);
      }
    });

    test("a command that does not exist gives a not_found error naming it", async () => {
      await assert.rejects(env.spawn(["bub-no-such-command-4711"]), (error: unknown) => {
        assert.ok(BubError.isInstance(error));
        assert.equal((error as BubError).kind, "not_found");
        assert.match((error as Error).message, /command "bub-no-such-command-4711" was not found/);
        return true;
      });
    });

    test("a cwd that does not exist gives a not_found error naming it", async () => {
      await assert.rejects(env.spawn("true", { cwd: "/no/such/dir-4711" }), (error: unknown) => {
        assert.ok(BubError.isInstance(error));
        assert.match(
          (error as Error).message,
          /working directory "\/no\/such\/dir-4711" does not exist/,
        );
        return true;
      });
    });

    test("an empty argv is rejected with a TypeError", async () => {
      await assert.rejects(env.spawn([]), TypeError);
    });
  });
}
