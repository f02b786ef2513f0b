/**
 * Every code block of README.md runs: TypeScript blocks as programs of the current runtime (with
 * `@bub/core` pointing at this checkout and the model at a local mock), shell blocks command by
 * command through the real CLI and examples. A block or command this test does not know how to run
 * fails the test, so the README cannot grow code that nothing checks.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  childEnv,
  cleanupStack,
  ROOT,
  runCli,
  runScript,
  startChild,
  tempDirs,
} from "../cli/_spawn.ts";
import { SETTINGS_SPECS } from "../../src/builtin/_settings_specs.ts";
import { readmeBlocks, shellCommands } from "./_blocks.ts";

const README = readFileSync(join(ROOT, "README.md"), "utf8");
const blocks = readmeBlocks(README);
const denoJson = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8"));
const packageName = denoJson.name as string;
const packageExports = Object.entries(denoJson.exports as Record<string, string>);

/** Points the README's package imports (the root and every subpath) at this checkout. */
function localImports(code: string): string {
  const url = (path: string) => pathToFileURL(join(ROOT, path)).href;
  return packageExports.reduce(
    (text, [key, path]) =>
      text.replaceAll(`"${packageName}${key.slice(1)}"`, JSON.stringify(url(path))),
    code,
  );
}

describe("README.md code blocks", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test("every JSON block parses (editor settings snippets are copied as they are)", () => {
    for (const block of blocks.filter((b) => b.lang === "json")) {
      assert.doesNotThrow(() => JSON.parse(block.code), `README JSON block at line ${block.line}`);
    }
  });

  test("every YAML block is a config.yml Bub loads: its approval rules compile", async () => {
    const { parse } = await import("yaml");
    const { loadApprovalSettings } = await import("../../src/builtin/approval_rules.ts");
    for (const block of blocks.filter((b) => b.lang === "yaml")) {
      const config = parse(block.code) as Record<string, unknown>;
      assert.ok(config && typeof config === "object", `README YAML block at line ${block.line}`);
      if ("approvals" in config) {
        const settings = loadApprovalSettings({ env: {}, config });
        assert.ok(settings.rules.length > 0, `README YAML block at line ${block.line}`);
      }
    }
  });

  test("the README has TypeScript and shell blocks, each in a known language", () => {
    assert.ok(blocks.some((block) => block.lang === "ts"));
    assert.ok(blocks.some((block) => block.lang === "sh"));
    for (const block of blocks) {
      assert.ok(
        ["ts", "sh", "json", "yaml", ""].includes(block.lang),
        `README block at line ${block.line} has language "${block.lang}"`,
      );
    }
  });

  for (const block of blocks.filter((b) => b.lang === "ts")) {
    test(`the TypeScript block at README line ${block.line} runs as written (no model configured) and exits 0`, async () => {
      const dirs = tempDirs("bub-readme-");
      cleanup.defer(() => dirs.remove());
      // Inside the checkout, so bare imports (e.g. @logtape/logtape) resolve from node_modules.
      const folder = mkdtempSync(join(ROOT, "tests", "readme", ".run-"));
      cleanup.defer(() => rmSync(folder, { recursive: true, force: true }));
      const file = join(folder, `block_${block.line}.ts`);
      writeFileSync(file, localImports(block.code));
      // No BUB_MODEL or key (childEnv drops every BUB_*): an example that needs a model starts
      // the offline demo model itself, as a reader running it would.
      const result = await runScript(file, dirs, [], { timeoutMs: 60_000 });
      assert.equal(result.code, 0, `exit ${result.code}\n${result.stdout}\n${result.stderr}`);
      const expected = [...block.code.matchAll(/console\.log\(.*\); \/\/ "(.*)"$/gm)];
      for (const [, text] of expected) assert.ok(result.stdout.includes(text!), result.stdout);
    });
  }

  test("the Configuration section names every setting with its config.yml key and env variable", () => {
    const start = README.indexOf("## Configuration");
    const section = README.slice(start, README.indexOf("\n## ", start + 1));
    for (const spec of SETTINGS_SPECS) {
      for (const field of spec.fields) {
        const key = spec.section ? `${spec.section}.${field.key}` : field.key;
        const env = spec.prefix + field.key.toUpperCase();
        assert.ok(section.includes(`\`${key}\``), `README Configuration lacks \`${key}\``);
        assert.ok(section.includes(`\`${env}\``), `README Configuration lacks \`${env}\``);
      }
    }
  });

  const commands = blocks.filter((b) => b.lang === "sh").flatMap((b) => shellCommands(b));
  for (const command of commands) {
    test(`the README command "${command.text}" (line ${command.line}) works`, async () => {
      const dirs = tempDirs("bub-readme-");
      cleanup.defer(() => dirs.remove());
      await runReadmeCommand(command.text, dirs);
    });
  }
});

type Dirs = ReturnType<typeof tempDirs>;

/** Runs one README shell command the way a user would, or fails for an unknown one. */
async function runReadmeCommand(text: string, dirs: Dirs): Promise<void> {
  const words = text.split(/\s+/);
  // Registry installs cannot run on a machine without the registries; check they name this package.
  if (/^(deno add jsr:|npm i |bun add )/.test(text)) {
    assert.ok(text.endsWith(packageName), `${text} must install ${packageName}`);
    return;
  }
  // Bundling needs the packed npm build: scripts/smoke_npm.sh builds and runs the README's own
  // esbuild banner (read from this file) around an app with top-level await.
  if (words[0] === "esbuild") {
    const smoke = readFileSync(join(ROOT, "scripts", "smoke_npm.sh"), "utf8");
    assert.match(text, /--bundle --platform=node/);
    if (text.includes("--banner:js=")) assert.match(smoke, /readme_banner=.*README\.md/);
    else assert.match(smoke, /"\$esbuild" app\.ts --bundle --platform=node --outfile=app\.cjs/);
    return;
  }
  // `.ci/run` is what runs this test; running it from here would recurse.
  if (text === ".ci/run") return;
  if (text === "scripts/tool deno run -A examples/chat.ts --demo") {
    const result = await runScript(join(ROOT, "examples", "chat.ts"), dirs, ["--demo"], {
      input: "run echo hello\n,quit\n",
      timeoutMs: 60_000,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /hello/);
    return;
  }
  if (text.startsWith("deno task bub ")) {
    // The task as a user runs it from the checkout (the project's own deno), with and without
    // the `--` that npm users type.
    const args = words.slice(3).map((word) => word.replace(/^"(.*)"$/, "$1"));
    for (const dashes of [[], ["--"]]) {
      const tool = join(ROOT, "scripts", "tool");
      await using child = startChild([tool, "deno", "task", "bub", ...dashes, ...args], {
        cwd: ROOT,
        env: childEnv(dirs),
      });
      child.end();
      assert.equal(await child.exited(120_000), 0, child.stderr);
      assert.match(child.stdout, /mock model/, child.stdout);
    }
    return;
  }
  if (words[0] === "bub") {
    const args = words.slice(1).map((word) => word.replace(/^"(.*)"$/, "$1"));
    const input = args[0] === "chat" ? ",quit\n" : undefined;
    mkdirSync(dirs.workspace, { recursive: true });
    const result = await runCli(dirs, args, { input, timeoutMs: 60_000 });
    assert.equal(result.code, 0, `bub ${args.join(" ")}: ${result.stdout}\n${result.stderr}`);
    assert.notEqual(result.stdout.trim(), "", `bub ${args.join(" ")} printed nothing`);
    return;
  }
  assert.fail(`README command "${text}" is not run by tests/readme/readme.test.ts`);
}
