/**
 * A plugin listed in config.yml that fails to load stops `bub` (issue 10 item 2): exit 1 and one
 * line naming the specifier, the resolved path and the loader's error. Relative plugin paths
 * resolve against the config file's folder, not the working directory.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { cleanupStack, runCli, type TempDirs, tempDirs } from "./_spawn.ts";

/** Writes `config.yml` and `files` (relative to its folder) wherever the CLI may look for it. */
function writeConfigWith(dirs: TempDirs, config: string, files: Record<string, string>): string[] {
  const folders = [dirname(dirs.configFile), dirs.bubHome];
  for (const folder of folders) {
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "config.yml"), config);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(folder, path)), { recursive: true });
      writeFileSync(join(folder, path), text);
    }
  }
  return folders;
}

describe("configured plugins that fail to load", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test("a plugin that throws at import stops bub with exit 1 and one line: spec, resolved path, error", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const folders = writeConfigWith(dirs, "plugins:\n  - ./plugins/guard.mjs\n", {
      "plugins/guard.mjs":
        `throw new Error("guard exploded");\nexport default { name: "guard" };\n`,
    });
    const result = await runCli(dirs, ["hooks"]);
    assert.equal(result.code, 1, result.stdout);
    assert.equal(result.stdout, "");
    const lines = result.stderr.trim().split("\n");
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0]!, /Cannot load plugin "\.\/plugins\/guard\.mjs"/);
    assert.match(lines[0]!, /guard exploded/);
    assert.ok(
      folders.some((folder) => lines[0]!.includes(join(folder, "plugins", "guard.mjs"))),
      `names the path resolved against the config folder: ${lines[0]}`,
    );
  });

  test("a missing plugin file stops bub with exit 1 naming the path resolved against the config folder", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    // The working directory has the file; the config folder does not: it must not be used.
    mkdirSync(join(dirs.workspace, "plugins"), { recursive: true });
    writeFileSync(join(dirs.workspace, "plugins", "gone.mjs"), `export default { name: "cwd" };\n`);
    const folders = writeConfigWith(dirs, "plugins: [./plugins/gone.mjs]\n", {});
    const result = await runCli(dirs, ["run", "hi"]);
    assert.equal(result.code, 1, result.stdout);
    const lines = result.stderr.trim().split("\n");
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0]!, /Cannot load plugin "\.\/plugins\/gone\.mjs"/);
    assert.ok(
      folders.some((folder) => lines[0]!.includes(join(folder, "plugins", "gone.mjs"))),
      lines[0],
    );
  });

  test("a plugin factory that throws stops bub with exit 1 and the factory's error", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    writeConfigWith(dirs, "plugins: [./factory.mjs]\n", {
      "factory.mjs": `export default () => { throw new Error("no policy file"); };\n`,
    });
    const result = await runCli(dirs, ["hooks"]);
    assert.equal(result.code, 1, result.stdout);
    const lines = result.stderr.trim().split("\n");
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0]!, /Cannot initialize plugin "\.\/factory\.mjs": no policy file/);
  });

  test("a relative plugin path that loads resolves against the config folder", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    writeConfigWith(dirs, "plugins: [./plugins/ok.mjs]\n", {
      "plugins/ok.mjs": `export default { name: "ok", resolveSession: () => "s" };\n`,
    });
    const result = await runCli(dirs, ["hooks"]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^resolveSession: builtin, ok$/m);
  });
});
