/**
 * Writes `src/_vendor/yaml.js` and `src/_vendor/commander.js`: the two dependencies that Bub's
 * synchronous code needs at import (the constructor reads config.yml; `createCliApp()` is
 * synchronous), each bundled from node_modules into one minified ES module. Loaded from npm they
 * are dozens of CommonJS files (yaml's Node build: ~40; commander: 8, and it loads
 * `node:child_process` at import for a feature Bub never uses), which was most of the cold import
 * of `mod.ts` on Deno. The types still come from the packages (`_vendor/*.d.ts` re-export them),
 * so both stay dependencies. Run with `deno task build:vendor` after changing either version; with
 * `--check` it writes nothing and fails when a committed bundle is stale (CI).
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import process from "node:process";

const ROOT = new URL("..", import.meta.url).pathname;
const VENDOR = join(ROOT, "src", "_vendor");
const check = process.argv.includes("--check");
const scratch = mkdtempSync(join(tmpdir(), "bub-vendor-"));

function versionOf(name: string): string {
  return JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")).version;
}

/** One minified ES module of `entry`, with a header naming the package and its license. */
function bundle(name: string, entry: string, aliases: string[] = []): string {
  const outfile = join(scratch, `${name}.js`);
  execFileSync(join(ROOT, "node_modules/.bin/esbuild"), [
    entry,
    "--bundle",
    "--format=esm",
    "--platform=node",
    "--target=es2022",
    "--charset=ascii",
    "--minify",
    "--legal-comments=none",
    ...aliases,
    `--outfile=${outfile}`,
    "--log-level=warning",
  ], { cwd: ROOT, stdio: "inherit" });
  const code = readFileSync(outfile, "utf8");
  // An ES module has no `require`: anything still required at run time would crash there.
  if (code.includes("Dynamic require of")) {
    throw new Error(`Cannot build: the ${name} bundle still calls require()`);
  }
  const license = JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8"))
    .license;
  return `// @ts-self-types="./${name}.d.ts"\n` +
    `// ${name} ${versionOf(name)} (${license} license, see THIRD_PARTY_LICENSES.md), bundled by ` +
    `scripts/build_vendor.ts. Do not edit.\n` + code;
}

/** yaml's ES module build, reduced to the two functions Bub imports. */
function yaml(): string {
  const entry = join(scratch, "yaml_entry.mjs");
  const browser = join(ROOT, "node_modules/yaml/browser/index.js");
  writeFileSync(entry, `export { parse, stringify } from ${JSON.stringify(browser)};\n`);
  return bundle("yaml", entry);
}

/**
 * commander: its ES module wrapper and the CommonJS files behind it. Its five `require("node:…")`
 * calls are aliased to shims that take the module from `process.getBuiltinModule` (Node >= 22.3,
 * Deno, Bun); `node:child_process` is taken only when `spawn` is called (executable subcommands).
 */
function commander(): string {
  const builtin = (name: string): string => `globalThis.process.getBuiltinModule("node:${name}")`;
  const aliases: string[] = [];
  for (const name of ["events", "path", "fs", "process", "child_process"]) {
    const shim = join(scratch, `${name}.cjs`);
    writeFileSync(
      shim,
      name === "child_process"
        ? `module.exports = { spawn: (...args) => ${builtin(name)}.spawn(...args) };\n`
        : `module.exports = ${builtin(name)};\n`,
    );
    aliases.push(`--alias:node:${name}=${shim}`);
  }
  return bundle("commander", join(ROOT, "node_modules/commander/esm.mjs"), aliases);
}

/** The licenses of the bundled packages, shipped beside them. */
function notices(names: string[]): string {
  return "# Third-party licenses\n\n`src/_vendor/` bundles code of the packages below.\n" +
    names.map((name) => {
      const license = readFileSync(join(ROOT, "node_modules", name, "LICENSE"), "utf8").trim();
      return `\n## ${name} ${versionOf(name)}\n\n\`\`\`\n${license}\n\`\`\`\n`;
    }).join("");
}

try {
  const files = new Map<string, string>([
    [join(VENDOR, "yaml.js"), yaml()],
    [join(VENDOR, "commander.js"), commander()],
    [join(ROOT, "THIRD_PARTY_LICENSES.md"), notices(["commander", "yaml"])],
  ]);
  let stale = 0;
  for (const [path, text] of files) {
    let committed: string | null = null;
    try {
      committed = readFileSync(path, "utf8");
    } catch {
      // not written yet
    }
    if (committed === text) console.log(`${relative(ROOT, path)} is up to date`);
    else if (check) {
      console.error(
        `${relative(ROOT, path)} is stale: run \`deno task build:vendor\` and commit it`,
      );
      stale++;
    } else {
      writeFileSync(path, text);
      console.log(`wrote ${relative(ROOT, path)} (${text.length} chars)`);
    }
  }
  if (stale > 0) process.exitCode = 1;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
