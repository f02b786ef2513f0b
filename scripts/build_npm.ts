/**
 * Builds the npm package into `npm/`: the console page bundle (scripts/build_web.ts), tsc 7 (ES2022, so `await using` is downlevelled for
 * Node 22), non-TypeScript assets, and an `npm/package.json` derived from deno.json and
 * package.json. Run with `deno task build:npm`.
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import process from "node:process";
import { mergeSharedChunks } from "./_npm_merge.ts";

const root = new URL("..", import.meta.url).pathname;
const out = join(root, "npm");
const denoJson = JSON.parse(readFileSync(join(root, "deno.json"), "utf8"));
// `bub --version` prints src/version.ts: it must say what the package says.
const versionSource = readFileSync(join(root, "src", "version.ts"), "utf8");
if (!versionSource.includes(`VERSION = ${JSON.stringify(denoJson.version)}`)) {
  throw new Error(`Cannot build: src/version.ts does not say version ${denoJson.version}`);
}
const packageJson = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

// The console page bundle is committed (JSR ships sources); rebuild it so a package never ships
// a stale one.
await import("./build_web.ts");

rmSync(out, { recursive: true, force: true });
execFileSync(join(root, "node_modules/.bin/tsc"), ["-p", join(root, "tsconfig.build.json")], {
  cwd: root,
  stdio: "inherit",
});

// Non-TypeScript files that ship with the sources (builtin skills). Their scripts were compiled
// by tsc; SKILL.md files are rewritten to run the `.js` (Node strips no types under node_modules).
function copyAssets(dir: string): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) copyAssets(path);
    else if ((!path.endsWith(".ts") || path.endsWith(".d.ts")) && !path.endsWith(".css")) {
      const target = join(out, "esm", relative(root, path));
      mkdirSync(dirname(target), { recursive: true });
      if (path.endsWith(".md")) {
        writeFileSync(
          target,
          readFileSync(path, "utf8").replace(/(scripts\/[\w.-]+)\.ts\b/g, "$1.js"),
        );
      } else cpSync(path, target);
    }
  }
}
copyAssets(join(root, "src"));

// Bundle the compiled modules per entry point (shared code in chunks, dynamically imported
// dependencies stay lazy): Node loads one file per entry instead of ~170 modules, which is most
// of its cold import time. Declarations stay in esm/.
//
// The dependencies that synchronous code imports statically are bundled in too, tree-shaken:
// zod's package loads ~150 modules (every locale) where Bub uses a few schema builders. The others
// stay external: they are loaded with `await import()` when needed, or are small.
const INLINED = new Set(["zod", "marked"]);
// yaml and commander, which the root needs at import, are committed as minified ES modules in
// src/_vendor/ (scripts/build_vendor.ts). They ship as files of their own, dist/vendor/*.js,
// imported as `#vendor/<name>` through the manifest's `imports`: re-bundled, esbuild would print
// them out again in full. The package keeps both as dependencies for their types.
const VENDORED = new Set(["commander", "yaml"]);
const vendorDir = join(out, "dist", "vendor");
mkdirSync(vendorDir, { recursive: true });
for (const name of VENDORED) {
  cpSync(join(root, "src", "_vendor", `${name}.js`), join(vendorDir, `${name}.js`));
}
/** Points the compiled modules' imports of src/_vendor/<name>.js at `#vendor/<name>`. */
function importVendored(dir: string): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) importVendored(path);
    else if (path.endsWith(".js") && !path.includes("/_vendor/")) {
      const text = readFileSync(path, "utf8");
      const rewritten = text.replace(/from "(?:\.\.?\/)+_vendor\/(\w+)\.js"/g, 'from "#vendor/$1"');
      if (rewritten !== text) writeFileSync(path, rewritten);
    }
  }
}
importVendored(join(out, "esm"));
// Optional dependencies (the OpenTelemetry SDK the CLI imports only to export traces) stay
// external and optional in the manifest.
const optionalDependencies = (packageJson.optionalDependencies ?? {}) as Record<string, string>;
// yaml stays external as well: `bub install` edits config.yml with its Document API through
// `await import("yaml")`, and yaml's Node build is CommonJS, which an ES bundle cannot require.
const externals = [
  ...Object.keys(packageJson.dependencies as Record<string, string>)
    .filter((name) => !INLINED.has(name) && (name === "yaml" || !VENDORED.has(name))),
  ...Object.keys(optionalDependencies),
].flatMap((name) => [`--external:${name}`, `--external:${name}/*`]);
const exportSources = denoJson.exports as Record<string, string>;
const jsOf = (source: string): string => source.replace(/^\.\//, "").replace(/\.ts$/, ".js");
// The library subpaths (kernel, tape, agent, ...) are re-exported from one internal core bundle,
// so importing one of them loads a handful of files instead of one chunk per combination of entry
// points. The root is an entry of its own: it reaches only what `BubFramework` and the root's
// names need (commands, channels, the provider client and the shell machinery are imported with
// `await import()` when first used), so its cold import stays small. The CLI (it starts when run
// as the main module), the testing helpers and the bin stay entries of their own, and so does
// `./channels`: it exports the Markdown renderer (and marked with it). Code entries share lands in
// shared chunks, so a class is the same object whichever subpath it is imported from.
const SEPARATE = new Set([".", "./testing", "./cli", "./channels"]);
const coreKeys = Object.keys(exportSources).filter((key) => !SEPARATE.has(key));
const coreEntry = join(out, "esm", "_core.js");
const exportNames = exportNamesOf(
  coreKeys.map((key) => join(out, "esm", jsOf(exportSources[key]!))),
);
const inCore = new Set<string>();
writeFileSync(
  coreEntry,
  coreKeys.map((key) => {
    const names = exportNames.get(join(out, "esm", jsOf(exportSources[key]!)))!
      .filter((name) => !inCore.has(name));
    for (const name of names) inCore.add(name);
    return `export { ${names.join(", ")} } from "./${jsOf(exportSources[key]!)}";\n`;
  }).join(""),
);
const entries = [
  coreEntry,
  ...[...SEPARATE].map((key) => join(out, "esm", jsOf(exportSources[key]!))),
  join(out, "esm", "src/cli/bin.js"),
];
execFileSync(join(root, "node_modules/.bin/esbuild"), [
  ...entries,
  "--bundle",
  "--splitting",
  "--format=esm",
  "--platform=node",
  "--target=es2022",
  "--charset=ascii",
  ...externals,
  "--external:#vendor/*",
  `--outdir=${join(out, "dist")}`,
  `--outbase=${join(out, "esm")}`,
  "--chunk-names=chunks/[name]-[hash]",
  `--metafile=${join(out, "meta.json")}`,
  "--log-level=warning",
], { cwd: root, stdio: "inherit" });
// Node pays ~0.6 ms per file it loads: chunks that the same entries load are merged into one
// file (scripts/_npm_merge.ts).
mergeSharedChunks(
  root,
  JSON.parse(readFileSync(join(out, "meta.json"), "utf8")),
  [
    { entry: "npm/dist/mod.js", label: "root" },
    { entry: "npm/dist/_core.js", label: "core" },
    { entry: "npm/dist/src/testing/mod.js", label: "testing" },
    { entry: "npm/dist/src/channels/mod.js", label: "channels" },
    { entry: "npm/dist/src/cli/mod.js", label: "cli" },
    { entry: "npm/dist/src/cli/bin.js", label: "bin" },
  ],
  [...externals, "--external:#vendor/*"],
);
rmSync(join(out, "meta.json"));
asciiOnly(join(out, "dist"));
// Each library subpath is a facade naming its own exports from the core bundle.
for (const key of coreKeys) {
  const file = join(out, "dist", jsOf(exportSources[key]!));
  const core = relative(dirname(file), join(out, "dist", "_core.js"));
  const names = exportNames.get(join(out, "esm", jsOf(exportSources[key]!)))!;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(
    file,
    `export {\n${names.map((name) => `  ${name},\n`).join("")}} from "${
      core.startsWith(".") ? core : "./" + core
    }";\n`,
  );
}
rmSync(coreEntry);
// The bundles carry code of these packages: their licenses ship with the package.
writeFileSync(
  join(out, "THIRD_PARTY_LICENSES.md"),
  "# Third-party licenses\n\nnpm/dist bundles code of the packages below.\n" +
    [...INLINED, ...VENDORED].sort().map((name) => {
      const dir = join(root, "node_modules", name);
      const { version } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      const license = readFileSync(join(dir, "LICENSE"), "utf8").trim();
      return `\n## ${name} ${version}\n\n\`\`\`\n${license}\n\`\`\`\n`;
    }).join(""),
);

/**
 * Makes every bundle pure ASCII. esbuild already escapes non-ASCII characters in code
 * (`--charset=ascii`, its default), but not in the comments it keeps (`→`, `§`): one such
 * character makes Node decode the whole file into a two-byte string, which V8 then scans and
 * keeps at twice the size (measured: ~5% of the root's cold import CPU and ~1.3 MiB of memory).
 * In a comment, the escape is just text.
 */
function asciiOnly(dir: string): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) asciiOnly(path);
    else if (path.endsWith(".js")) {
      const text = readFileSync(path, "utf8");
      const ascii = text.replace(
        /[\u0080-\u{10ffff}]/gu,
        (char) => `\\u{${char.codePointAt(0)!.toString(16)}}`,
      );
      if (ascii !== text) writeFileSync(path, ascii);
    }
  }
}

/** The value exports of each compiled module (read from esbuild's metafile, nothing bundled). */
function exportNamesOf(files: string[]): Map<string, string[]> {
  const scratch = join(out, ".exports");
  execFileSync(join(root, "node_modules/.bin/esbuild"), [
    ...files,
    "--format=esm",
    `--outdir=${scratch}`,
    `--outbase=${join(out, "esm")}`,
    `--metafile=${join(scratch, "meta.json")}`,
    "--log-level=warning",
  ], { cwd: root, stdio: "inherit" });
  const meta = JSON.parse(readFileSync(join(scratch, "meta.json"), "utf8")) as {
    outputs: Record<string, { entryPoint?: string; exports: string[] }>;
  };
  rmSync(scratch, { recursive: true, force: true });
  const names = new Map<string, string[]>();
  for (const output of Object.values(meta.outputs)) {
    if (output.entryPoint) names.set(join(root, output.entryPoint), [...output.exports].sort());
  }
  for (const file of files) {
    if (!names.get(file)?.length) throw new Error(`Cannot build: no exports found for ${file}`);
  }
  return names;
}

// The bundles in dist/ are what runs: drop the compiled modules they were built from, keeping the
// declarations (types) and the builtin skills' files (their scripts run as separate programs).
function pruneCompiled(dir: string): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (relative(join(out, "esm"), path) !== join("src", "skills", "builtin")) {
        pruneCompiled(path);
      }
    } else if (path.endsWith(".js")) rmSync(path);
  }
}
pruneCompiled(join(out, "esm"));

const exportsMap: Record<string, Record<string, string>> = {};
for (const [key, source] of Object.entries(denoJson.exports as Record<string, string>)) {
  const base = source.replace(/^\.\//, "").replace(/\.ts$/, "");
  exportsMap[key] = {
    types: `./esm/${base}.d.ts`,
    import: `./dist/${base}.js`,
    default: `./dist/${base}.js`,
  };
}

const bin = "./dist/src/cli/bin.js";
if (!existsSync(join(out, bin))) throw new Error(`Cannot build: ${bin} was not emitted`);
chmodSync(join(out, bin), 0o755);

const manifest = {
  name: denoJson.name,
  version: denoJson.version,
  description: packageJson.description,
  license: denoJson.license,
  type: "module",
  engines: { node: ">=22.12" },
  exports: exportsMap,
  imports: { "#vendor/*": "./dist/vendor/*.js" },
  main: exportsMap["."]!.import,
  types: exportsMap["."]!.types,
  bin: { bub: bin },
  files: ["dist/", "esm/", "README.md", "LICENSE", "THIRD_PARTY_LICENSES.md"],
  sideEffects: false,
  dependencies: packageJson.dependencies,
  optionalDependencies,
};
writeFileSync(join(out, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
for (const file of ["README.md", "LICENSE"]) cpSync(join(root, file), join(out, file));
process.stdout.write(`built npm/ (${Object.keys(exportsMap).length} exports)\n`);
