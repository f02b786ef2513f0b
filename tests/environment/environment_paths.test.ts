import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, readFile, realpath, symlink } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { Environment, type Process } from "../../src/kernel/environment.ts";
import { ENVIRONMENT_STATE_KEY, WORKSPACE_STATE_KEY } from "../../src/kernel/turn.ts";
import { LocalEnvironment } from "../../src/environment/local_environment.ts";
import { environmentFromState } from "../../src/environment/from_state.ts";
import { withTempDir } from "./_helpers.ts";

class PlainEnvironment extends Environment {
  spawn(): Promise<Process> {
    return Promise.reject(new Error("no processes"));
  }
  readText(): Promise<string> {
    return Promise.resolve("");
  }
  writeText(): Promise<void> {
    return Promise.resolve();
  }
}

describe("Environment default resolvePath", () => {
  test("relative joins and normalizes against the workspace; absolute is unchanged", () => {
    const env = new PlainEnvironment("/srv/work");
    assert.equal(env.resolvePath("a/../b.txt"), "/srv/work/b.txt");
    assert.equal(env.resolvePath("./c/./d"), "/srv/work/c/d");
    assert.equal(env.resolvePath("/etc/hosts"), "/etc/hosts");
  });

  test("a relative path without a workspace throws", () => {
    assert.throws(() => new PlainEnvironment().resolvePath("a.txt"), {
      message: "relative path 'a.txt' is not allowed without a workspace",
    });
  });
});

describe("LocalEnvironment files and host paths", () => {
  test("resolvePath expands ~, keeps absolute paths and resolves symlinks and ..", async () => {
    await withTempDir(async (dir) => {
      const real = await realpath(dir);
      await mkdir(join(real, "target"));
      await symlink(join(real, "target"), join(real, "link"));
      const env = new LocalEnvironment(real);
      assert.equal(env.resolvePath("~"), homedir());
      assert.equal(env.resolvePath("~/x.txt"), join(homedir(), "x.txt"));
      assert.equal(env.resolvePath("/etc/hosts"), "/etc/hosts");
      assert.equal(env.resolvePath("link/new/file.txt"), join(real, "target", "new", "file.txt"));
      assert.equal(env.resolvePath("a/../b.txt"), join(real, "b.txt"));
    });
  });

  test("a relative path without a workspace gives a clear error", () => {
    assert.throws(() => new LocalEnvironment().resolvePath("notes.txt"), {
      message: "relative path 'notes.txt' is not allowed without a workspace",
    });
  });

  test("writeText creates missing parents and readText reads UTF-8 back", async () => {
    await withTempDir(async (dir) => {
      const env = new LocalEnvironment(dir);
      await env.writeText("deep/er/notes.txt", "héllo ✓\n");
      assert.equal(await readFile(join(dir, "deep/er/notes.txt"), "utf8"), "héllo ✓\n");
      assert.equal(await env.readText(join(dir, "deep/er/notes.txt")), "héllo ✓\n");
      await assert.rejects(env.readText("missing.txt"), { code: "ENOENT" });
    });
  });

  test("python defaults to python3 and close() resolves", async () => {
    const env = new LocalEnvironment("/tmp");
    assert.equal(env.python, "python3");
    await env.close();
  });
});

describe("environmentFromState", () => {
  test("returns the state's environment when present", () => {
    const env = new PlainEnvironment("/x");
    assert.equal(environmentFromState({ [ENVIRONMENT_STATE_KEY]: env }), env);
  });

  test("falls back to a host environment for _runtime_workspace", () => {
    const env = environmentFromState({
      [WORKSPACE_STATE_KEY]: "/srv/work",
      [ENVIRONMENT_STATE_KEY]: 3,
    });
    assert.ok(env instanceof LocalEnvironment);
    assert.equal(env.workspace, "/srv/work");
    const fromUrl = environmentFromState({ [WORKSPACE_STATE_KEY]: new URL("file:///srv/u") });
    assert.equal(fromUrl.workspace, "/srv/u");
  });

  test("without a workspace the environment has none and relative paths fail", () => {
    const env = environmentFromState({});
    assert.ok(env instanceof LocalEnvironment);
    assert.equal(env.workspace, null);
    assert.throws(() => env.resolvePath("a"), /not allowed without a workspace/);
  });

  test("a workspace that is not a path raises TypeError", () => {
    assert.throws(() => environmentFromState({ [WORKSPACE_STATE_KEY]: 42 }), {
      name: "TypeError",
      message: /^runtime workspace must be a filesystem path/,
    });
  });
});
