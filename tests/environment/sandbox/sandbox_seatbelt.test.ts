/**
 * The macOS sandbox (Seatbelt through `sandbox-exec`) against real commands: the planted secrets
 * stay unreadable, nothing outside the workspace is written, Bub cannot be signalled, the network
 * is off, and the workspace and the command's private TMPDIR work. Runs only on macOS with
 * `/usr/bin/sandbox-exec`; the CI runs Linux, so this suite is skipped there (the profile's text
 * is tested everywhere by seatbelt_profile.test.ts).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { sandboxBackend } from "../../../src/environment/sandbox_backend.ts";
import {
  type Layout,
  layout,
  leaksNothing,
  listener,
  PLANTED,
  run,
  sandboxOf,
} from "./_helpers.ts";

const SKIP_SEATBELT: string | false = sandboxBackend() === "seatbelt"
  ? false
  : `Seatbelt is macOS's sandbox; this is ${process.platform} (the CI does not run macOS)`;

describe("the Seatbelt sandbox (macOS)", { skip: SKIP_SEATBELT }, () => {
  let dirs: Layout;
  before(() => dirs = layout());
  after(() => dirs?.remove());

  test("the planted secrets cannot be read", async () => {
    await using env = sandboxOf(dirs);
    for (
      const path of [
        join(dirs.home, ".ssh", "id_ed25519"),
        join(dirs.bubHome, "config.yml"),
        join(dirs.bubHome, "tapes", "web__x.jsonl"),
        join(dirs.home, ".bashrc"),
        join(dirs.otherWorkspace, "notes.txt"),
        join(dirs.outside, "data.txt"),
      ]
    ) {
      const result = await run(env, `cat '${path}'`);
      assert.notEqual(result.code, 0, path);
      assert.ok(leaksNothing(result.stdout + result.stderr), path);
    }
  });

  test("writes land in the workspace and TMPDIR only", async () => {
    await using env = sandboxOf(dirs);
    const ok = await run(env, 'echo a > made.txt && echo b > "$TMPDIR/t" && cat "$TMPDIR/t"');
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout, "b\n");
    assert.equal(readFileSync(join(dirs.workspace, "made.txt"), "utf8"), "a\n");
    for (const path of [join(dirs.outside, "x"), join(dirs.home, ".bashrc"), "/tmp/bub-x"]) {
      const result = await run(env, `echo x >> '${path}'`);
      assert.notEqual(result.code, 0, path);
    }
    assert.equal(readFileSync(join(dirs.home, ".bashrc"), "utf8"), PLANTED.bashrc);
    assert.ok(!existsSync(join(dirs.outside, "x")));
  });

  test("Bub cannot be signalled, and network off reaches no listener", async () => {
    await using env = sandboxOf(dirs);
    const kill = await run(env, `kill -0 ${process.pid}`);
    assert.notEqual(kill.code, 0);
    await using server = await listener();
    const connect = await run(env, `nc -z -w 2 127.0.0.1 ${server.port}`);
    assert.notEqual(connect.code, 0);
    assert.equal(server.connections, 0);
  });
});
