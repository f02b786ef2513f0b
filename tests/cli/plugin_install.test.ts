/**
 * Plugins from the command line (issue 33 item 4): `bub install / uninstall / update / plugins`
 * against a fake npm registry on 127.0.0.1 (and JSR's npm route, `@jsr/scope__name`, from the
 * same fake), local folders and tarballs; installed plugins import `@bub/core` and share its
 * classes; a failed install leaves config.yml and the installed set as they were.
 */
import { after, afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { type FakeRegistry, materialize, npmPack, startFakeRegistry } from "./_npm_registry.ts";
import {
  BIN,
  childEnv,
  type Cleanup,
  cleanupStack,
  type CliResult,
  runCli,
  runtimeCommand,
  startChild,
  type TempDirs,
  tempDirs,
} from "./_spawn.ts";

const LONG = { timeoutMs: 240_000 };

interface Setup {
  dirs: TempDirs;
  registry: FakeRegistry;
  project: string;
  bub(...args: string[]): Promise<CliResult>;
}

describe("bub install / uninstall / update / plugins", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  /** Temp dirs, a fake registry, and the plugin project's .npmrc pointing npm (and @jsr) at it. */
  async function setup(config: string, stack: Cleanup = cleanup): Promise<Setup> {
    const dirs = tempDirs("bub-plugins-");
    stack.defer(() => dirs.remove());
    const registry = await startFakeRegistry();
    stack.defer(() => registry[Symbol.asyncDispose]());
    dirs.writeConfig(config);
    const project = join(dirs.bubHome, "plugins");
    mkdirSync(project, { recursive: true });
    writeFileSync(
      join(project, ".npmrc"),
      `registry=${registry.url}\n@jsr:registry=${registry.url}\n`,
    );
    return { dirs, registry, project, bub: (...args) => runCli(dirs, args, LONG) };
  }

  /**
   * One project for the tests that check a failed install changes nothing, made by the first of
   * them: `bub-plugin-greet` listed in config.yml, then installed with the `npm:` form (which
   * must not list it twice). Each of those tests leaves it as it found it.
   */
  let greetProject: Promise<Setup & { install: CliResult; configAfter: string }> | undefined;
  const shared = cleanupStack();
  after(() => shared.run());

  function withGreetInstalled(): Promise<Setup & { install: CliResult; configAfter: string }> {
    greetProject ??= (async () => {
      const project = await setup("# settings\nplugins:\n  - bub-plugin-greet\n", shared);
      await project.registry.publish("greet", "1.0.0");
      const install = await project.bub("install", "npm:bub-plugin-greet@^1.0.0");
      return { ...project, install, configAfter: readFileSync(project.dirs.configFile, "utf8") };
    })();
    return greetProject;
  }

  /** config.yml, package.json, the lock file and node_modules' entries of `project`. */
  function projectState({ dirs, project }: Setup) {
    return {
      config: readFileSync(dirs.configFile),
      manifest: readFileSync(join(project, "package.json")),
      lock: readFileSync(join(project, "package-lock.json")),
      modules: readdirSync(join(project, "node_modules")).sort(),
    };
  }

  function ok(result: CliResult): string {
    assert.equal(result.code, 0, `exit ${result.code}\n${result.stdout}\n${result.stderr}`);
    return result.stdout;
  }

  test("a plugin file kept in BUB_HOME imports @bub/core and its hook runs in a bub run turn", async () => {
    const dirs = tempDirs("bub-plugins-");
    cleanup.defer(() => dirs.remove());
    const source = materialize("greet", "0.0.1");
    cleanup.defer(() => rmSync(source, { recursive: true, force: true }));
    copyFileSync(join(source, "index.js"), join(dirs.bubHome, "greet.mjs"));
    dirs.writeConfig("plugins:\n  - ./greet.mjs\n");
    const out = ok(await runCli(dirs, ["run", "hi"], LONG));
    assert.match(out, /greet 0\.0\.1 answers \(kernel=true error=true\)/);
  });

  test("install from the registry, run its hook, list it, update 1.0.0 -> 1.1.0, uninstall", async () => {
    const config = "# my settings\nmodel: openai:gpt-4o # kept\n";
    const { dirs, registry, project, bub } = await setup(config);
    await registry.publish("greet", "1.0.0");

    const installed = ok(await bub("install", "bub-plugin-greet"));
    assert.match(installed, /Installed bub-plugin-greet@1\.0\.0 \(npm\) as "bub-plugin-greet"/);
    assert.equal(
      readFileSync(dirs.configFile, "utf8"),
      `${config}plugins:\n  - bub-plugin-greet\n`,
      "the entry is added and the rest of the file kept",
    );
    const manifest = JSON.parse(readFileSync(join(project, "package.json"), "utf8"));
    assert.equal(manifest.private, true);
    assert.equal(manifest.type, "module");
    assert.equal(manifest.dependencies["bub-plugin-greet"], "^1.0.0");
    assert.ok(existsSync(join(project, "package-lock.json")));
    assert.ok(!existsSync(join(project, "node_modules", "@bub", "core")), "no second copy");

    assert.match(
      ok(await bub("run", "hi")),
      /greet 1\.0\.0 answers \(kernel=true error=true\)/,
      "the plugin's hook runs, and its @bub/core classes are the framework's",
    );
    assert.match(
      ok(await bub("plugins")),
      /^bub-plugin-greet {2}1\.0\.0 {2}npm {2}loaded as "greet" {2}hooks: runModel$/m,
    );

    await registry.publish("greet", "1.1.0");
    assert.match(ok(await bub("update")), /^bub-plugin-greet: 1\.0\.0 -> 1\.1\.0$/m);
    assert.match(ok(await bub("run", "hi")), /greet 1\.1\.0 answers/);
    assert.match(ok(await bub("update", "bub-plugin-greet")), /1\.1\.0 \(up to date\)/);

    const removed = ok(await bub("uninstall", "bub-plugin-greet"));
    assert.match(removed, /Uninstalled bub-plugin-greet@1\.1\.0/);
    assert.match(removed, /Removed "bub-plugin-greet" from plugins/);
    assert.equal(readFileSync(dirs.configFile, "utf8"), config);
    assert.ok(!existsSync(join(project, "node_modules", "bub-plugin-greet")));
    assert.match(ok(await bub("plugins")), /no plugins configured/);
  });

  test("installs jsr:@scope/name through JSR's npm registry, a local folder and a .tgz", async () => {
    const { dirs, registry, project, bub } = await setup("");
    await registry.publish("hello_jsr", "1.2.0");
    const folder = materialize("local", "0.3.0", join(dirs.tmp, "local"));
    const tarball = await npmPack(materialize("tarball", "2.0.0", join(dirs.tmp, "tar")), dirs.tmp);

    const out = ok(await bub("install", "jsr:@demo/hello@^1.2.0", folder, tarball.file));
    assert.match(out, /Installed @jsr\/demo__hello@1\.2\.0 \(jsr\) as "jsr:@demo\/hello"/);
    assert.match(out, /Installed bub-plugin-local@0\.3\.0 \(path\)/);
    assert.match(out, /Installed bub-plugin-tarball@2\.0\.0 \(path\)/);
    assert.ok(registry.requested.includes("@jsr/demo__hello"));
    assert.match(readFileSync(join(project, ".npmrc"), "utf8"), /@jsr:registry=http:\/\/127/);
    assert.equal(
      readFileSync(dirs.configFile, "utf8"),
      "plugins:\n  - jsr:@demo/hello\n  - bub-plugin-local\n  - bub-plugin-tarball\n",
    );

    const rows = JSON.parse(ok(await bub("plugins", "--json"))) as Record<string, unknown>[];
    assert.deepEqual(
      rows.map((row) => [row.entry, row.version, row.source, row.loaded, row.hooks]),
      [
        ["jsr:@demo/hello", "1.2.0", "jsr", true, ["runModel"]],
        ["bub-plugin-local", "0.3.0", "path", true, ["systemPrompt"]],
        ["bub-plugin-tarball", "2.0.0", "path", true, ["saveState"]],
      ],
    );
    assert.match(ok(await bub("run", "hi")), /hello from jsr:@demo\/hello 1\.2\.0/);
    ok(await bub("uninstall", "jsr:@demo/hello"));
    assert.ok(!readFileSync(dirs.configFile, "utf8").includes("jsr:"));
  });

  test("without npm, bub install says so and changes nothing", async () => {
    const dirs = tempDirs("bub-plugins-");
    cleanup.defer(() => dirs.remove());
    dirs.writeConfig("# mine\n");
    const result = await runCli(dirs, ["install", "bub-plugin-greet"], {
      ...LONG,
      env: { PATH: join(dirs.tmp, "no-npm-here") },
    });
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stderr, /npm could not be started .*install Node\.js with npm/);
    assert.equal(readFileSync(dirs.configFile, "utf8"), "# mine\n");
  });

  test("a failed install (package missing, plugin import throws) leaves everything as it was", async () => {
    const greet = await withGreetInstalled();
    const { registry, project, bub } = greet;
    await registry.publish("broken", "1.0.0");
    // Listed already: the npm: form installs the package without listing it twice.
    ok(greet.install);
    assert.equal(greet.configAfter, "# settings\nplugins:\n  - bub-plugin-greet\n");
    const state = () => projectState(greet);
    const before = state();
    const listed = ok(await bub("plugins"));

    const missing = await bub("install", "bub-plugin-missing");
    assert.equal(missing.code, 1, missing.stdout);
    assert.match(missing.stderr, /bub: .*npm install failed.*(404|Not found)/i);
    assert.deepEqual(state(), before);
    assert.equal(ok(await bub("plugins")), listed);

    const broken = await bub("install", "bub-plugin-broken");
    assert.equal(broken.code, 1, broken.stdout);
    assert.match(
      broken.stderr,
      /Cannot install bub-plugin-broken: .*broken plugin exploded at import/,
    );
    assert.deepEqual(state(), before);
    assert.ok(!existsSync(join(project, "node_modules", "bub-plugin-broken")));
    assert.equal(ok(await bub("plugins")), listed);
  });

  test("bub install stopped by SIGINT while npm runs puts everything back and exits 130", async () => {
    const greet = await withGreetInstalled();
    const { dirs, registry } = greet;
    ok(greet.install);
    const state = () => projectState(greet);
    const before = state();
    registry.stall("bub-plugin-slow");
    await using child = startChild(runtimeCommand(BIN, ["install", "bub-plugin-slow"]), {
      cwd: dirs.workspace,
      env: childEnv(dirs),
    });
    child.end();
    const deadline = Date.now() + 120_000;
    while (!registry.requested.includes("bub-plugin-slow") && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(registry.requested.includes("bub-plugin-slow"), "npm asked the registry");
    // process.kill, not child.kill: Deno's ChildProcess.kill() reports the child as killed by
    // the signal, whatever exit code it then chose.
    process.kill(child.process.pid!, "SIGINT");
    assert.equal(await child.exited(120_000), 130, child.stderr);
    assert.deepEqual(state(), before);
  });
});
