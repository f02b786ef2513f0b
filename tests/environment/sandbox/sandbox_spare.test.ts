/**
 * The spare sandbox: once a session has run a command, or a turn of it has started (`prepare`),
 * its next command's sandbox is started ahead and waits. Each command still starts in a fresh
 * sandbox (an empty `/tmp`, its own working directory, variables and stdin), a waiting spare is
 * the process the next command runs as, and closing the environment ends the spare, even while it
 * is being started.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { findExecutable } from "../../../src/_internal/find_executable.ts";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import {
  bwrapPids,
  type Layout,
  layout,
  processesIn,
  profileOf,
  sandboxOf,
  SKIP,
} from "./_helpers.ts";
import { SandboxedEnvironment } from "../../../src/environment/sandboxed_environment.ts";
import { BubError } from "../../../src/kernel/errors.ts";

/** The leader of process group `pgid` and its members that still run. */
function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid && fields[0] !== "Z") out.push(Number(name));
    } catch { /* exited meanwhile */ }
  }
  return out;
}

async function eventually(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("the spare sandbox of a session", { skip: SKIP }, () => {
  let dirs: Layout;
  before(() => {
    dirs = layout();
    mkdirSync(join(dirs.workspace, "sub"));
  });
  after(() => dirs?.remove());

  test("every command starts fresh: empty /tmp, its own cwd, variables and stdin", async () => {
    await using env = sandboxOf(dirs);
    for (let i = 0; i < 4; i++) {
      const cwd = i % 2 === 0 ? dirs.workspace : join(dirs.workspace, "sub");
      const proc = await env.spawn(
        `echo "marks=$(ls /tmp | grep -c mark-)"; touch /tmp/mark-${i}; echo "v=$MARK"; pwd; head -c 5`,
        { cwd, env: { MARK: `m${i}` } },
      );
      await proc.writeStdin(new TextEncoder().encode(`in-${i}\n`));
      proc.closeStdin();
      const [out, err, code] = await Promise.all([
        new Response(proc.stdout).text(),
        new Response(proc.stderr).text(),
        proc.wait(),
      ]);
      assert.equal(code, 0, err);
      assert.equal(out, `marks=0\nv=m${i}\n${cwd}\nin-${i}\n`, `command ${i}`);
    }
  });

  test("the next command runs as the spare started before it; closing ends the spare", async () => {
    const env = sandboxOf(dirs);
    let spare = 0;
    try {
      const first = await env.spawn("true");
      first.closeStdin();
      await first.wait();
      // The spare is started right after the first command: a bwrap that is not the first.
      await eventually(() => [...bwrapPids()].some((pid) => pid !== first.pid), "a spare");
      const waiting = bwrapPids();
      const second = await env.spawn("echo second");
      second.closeStdin();
      assert.ok(waiting.has(second.pid), "the second command is a bwrap that was waiting");
      assert.equal(await new Response(second.stdout).text(), "second\n");
      assert.equal(await second.wait(), 0);
      await eventually(() => [...bwrapPids()].some((pid) => !waiting.has(pid)), "a new spare");
      spare = [...bwrapPids()].find((pid) => !waiting.has(pid))!;
      assert.ok(groupMembers(spare).length > 0);
    } finally {
      await env.close();
    }
    await eventually(() => groupMembers(spare).length === 0, "the spare to end");
  });

  test("closing a session ends its waiting spare and the egress relay inside it", {
    skip: findExecutable("socat", { path: process.env.PATH ?? null }) === null ? "no socat" : false,
  }, async () => {
    const workspace = join(dirs.workspace, "sub");
    const env = sandboxOf(dirs, { workspace, network: { allow: ["example.com"] } });
    try {
      const first = await env.spawn("true");
      first.closeStdin();
      await first.wait();
      // The spare's relay (socat) runs in the workspace once the spare is up.
      await eventually(() => processesIn(workspace).length > 0, "the spare's processes");
    } finally {
      await env.close();
    }
    await eventually(() => processesIn(workspace).length === 0, "no process of the sandbox");
  });

  test("a prepared session's first command runs in the sandbox started before it", async () => {
    const env = sandboxOf(dirs);
    try {
      assert.equal(bwrapPids().size, 0);
      await env.prepare();
      await eventually(() => bwrapPids().size > 0, "the prepared spare");
      const waiting = bwrapPids();
      await env.prepare(); // a spare waits: no second one
      const first = await env.spawn("echo first");
      first.closeStdin();
      assert.ok(waiting.has(first.pid), "the first command is the bwrap that was waiting");
      assert.equal(await new Response(first.stdout).text(), "first\n");
      assert.equal(await first.wait(), 0);
    } finally {
      await env.close();
    }
    await eventually(() => bwrapPids().size === 0, "no bwrap after close");
  });

  test("a session that ran nothing leaves no bwrap once closed", async () => {
    const env = sandboxOf(dirs);
    await env.prepare();
    await eventually(() => bwrapPids().size > 0, "the prepared spare");
    const [spare] = [...bwrapPids()];
    await env.close();
    await eventually(() => groupMembers(spare!).length === 0, "the spare to end");
    assert.equal(bwrapPids().size, 0);
    // Nothing starts again in a closed session.
    await env.prepare();
    await assert.rejects(env.spawn("true"), (error) => error instanceof BubError);
    assert.equal(bwrapPids().size, 0);
  });

  test("closing a session while its spare is being started leaves no bwrap", async () => {
    for (let i = 0; i < 36; i++) {
      // The probe's answer comes before, with or after the close (0-6 ms), as a lifespan's does.
      const delay = i % 7;
      const env = new SandboxedEnvironment(profileOf(dirs), {
        available: () => new Promise((resolve) => setTimeout(() => resolve(true), delay)),
      });
      const prepared = env.prepare();
      // A first command racing the close too (every third round), then the close itself.
      const command = i % 3 === 0 ? env.spawn("true").then((proc) => proc.wait()) : null;
      await new Promise((resolve) => setTimeout(resolve, (i * 5) % 11));
      await env.close();
      await prepared;
      await command?.catch((error) => assert.ok(error instanceof BubError, String(error)));
    }
    await eventually(() => bwrapPids().size === 0, "no bwrap left", 5_000);
  });
});
