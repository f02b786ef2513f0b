/**
 * What a sandboxed command may still do: work in its workspace (files, a build, git), use a
 * private /tmp, reach the network when it is on, and use the extra paths as configured.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SandboxedEnvironment } from "../../../src/environment/sandboxed_environment.ts";
import { type Layout, layout, listener, run, sandboxOf, SKIP } from "./_helpers.ts";

describe("sandbox: what stays allowed", { skip: SKIP }, () => {
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

  test("files written in the workspace appear on the host, and host files read back", async () => {
    writeFileSync(join(dirs.workspace, "in.txt"), "from host\n");
    const result = await run(env, "cat in.txt && mkdir -p out && echo from sandbox > out/x.txt");
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "from host\n");
    assert.equal(readFileSync(join(dirs.workspace, "out", "x.txt"), "utf8"), "from sandbox\n");
  });

  test("the working directory is the workspace at its host path, and exit codes pass", async () => {
    const result = await run(env, "pwd; exit 7");
    assert.equal(result.stdout, `${dirs.workspace}\n`);
    assert.equal(result.code, 7);
  });

  test("a build: make compiles and runs a C program in the workspace", async (t) => {
    const probe = await run(env, "command -v cc && command -v make");
    if (probe.code !== 0) return t.skip("no C compiler or make on this host");
    writeFileSync(join(dirs.workspace, "hello.c"), "int main(void){return 42;}\n");
    writeFileSync(join(dirs.workspace, "Makefile"), "hello: hello.c\n\tcc -o hello hello.c\n");
    const result = await run(env, "make -s && ./hello");
    assert.equal(result.code, 42, result.stderr);
    assert.ok(existsSync(join(dirs.workspace, "hello")));
  });

  test("git init, commit and status work in a repository in the workspace", async () => {
    const repo = join(dirs.workspace, "repo");
    mkdirSync(repo);
    const result = await run(
      env,
      `cd ${repo} && git init -q && echo a > a.txt && git add a.txt && ` +
        "git -c user.name=t -c user.email=t@e commit -qm first && echo b > b.txt && " +
        "git status --porcelain",
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "?? b.txt\n");
  });

  test("stdin reaches the command", async () => {
    const proc = await env.spawn("tr a-z A-Z");
    await proc.writeStdin(new TextEncoder().encode("shout\n"));
    proc.closeStdin();
    assert.equal(await new Response(proc.stdout).text(), "SHOUT\n");
    assert.equal(await proc.wait(), 0);
  });

  test("with network on, the test's listener on 127.0.0.1 answers", async () => {
    await using server = await listener();
    await using online = sandboxOf(dirs, { network: "on" });
    const result = await run(online, `exec 3<>/dev/tcp/127.0.0.1/${server.port} && cat <&3`);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "pong\n");
    assert.equal(server.connections, 1);
  });

  test("an extra read-only path is readable, not writable; a read-write one is writable", async () => {
    const ro = join(dirs.root, "ro");
    const rw = join(dirs.root, "rw");
    mkdirSync(ro);
    mkdirSync(rw);
    writeFileSync(join(ro, "data.txt"), "shared\n");
    await using extra = sandboxOf(dirs, { readOnly: [ro], readWrite: [rw] });
    const read = await run(extra, `cat ${ro}/data.txt`);
    assert.equal(read.stdout, "shared\n");
    const write = await run(extra, `echo x > ${ro}/new.txt`);
    assert.notEqual(write.code, 0);
    assert.equal(existsSync(join(ro, "new.txt")), false);
    const ok = await run(extra, `echo y > ${rw}/new.txt`);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(readFileSync(join(rw, "new.txt"), "utf8"), "y\n");
    assert.equal(await extra.readText(join(ro, "data.txt")), "shared\n");
  });

  test("a workspace and an extra path given through symlinks are reached by those paths", async () => {
    const realExtra = join(dirs.root, "real-extra");
    mkdirSync(realExtra);
    writeFileSync(join(realExtra, "tool.sh"), "#!/bin/sh\necho tool ran\n", { mode: 0o755 });
    const extraLink = join(dirs.root, "extra-link");
    const workspaceLink = join(dirs.root, "workspace-link");
    symlinkSync(realExtra, extraLink);
    symlinkSync(dirs.workspace, workspaceLink);
    await using linked = sandboxOf(dirs, { workspace: workspaceLink, readOnly: [extraLink] });
    const result = await run(linked, `pwd; ${extraLink}/tool.sh`);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `${workspaceLink}\ntool ran\n`);
  });
});
