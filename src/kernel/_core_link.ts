/**
 * Private: `@bub/core` for plugins kept under Bub's home. On Node and Bun a bare import resolves
 * through the `node_modules` folders above the importing file, and neither `<home>` (where a
 * plain plugin file is kept) nor `<home>/plugins` (the project `bub install` installs into) has
 * one with `@bub/core` in it. {@link ensureCoreLink} writes `<home>/node_modules/@bub/core`: a
 * small package whose entry points re-export the running copy's own modules, so a plugin and the
 * framework share one copy of the kernel classes (`instanceof BubError` holds). It is rewritten
 * when the running copy moved, and left alone when it is a package of the user's own.
 *
 * @module
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The package.json field marking the link package as Bub's (its value: the running copy). */
const MARKER = "bubCoreLink";

function readJson(path: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(readFileSync(path, "utf8"));
    return value !== null && typeof value === "object" ? value as Record<string, unknown> : null;
  } catch {
    return null;
  }
}

/**
 * The folder of the running `@bub/core` (the nearest folder above `from` whose package.json is
 * named `@bub/core`), or null when it was not loaded from files (e.g. from a URL).
 */
export function runningPackageRoot(from: string = import.meta.url): string | null {
  if (!from.startsWith("file:")) return null;
  let dir = dirname(fileURLToPath(from));
  for (;;) {
    if (readJson(join(dir, "package.json"))?.name === "@bub/core") return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** The import target of one `exports` value: a path, or the `import`/`default` condition's. */
function exportTarget(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (value === null || typeof value !== "object") return null;
  const conditions = value as Record<string, unknown>;
  return exportTarget(conditions.import) ?? exportTarget(conditions.default);
}

/**
 * The entry points of the package at `root` (subpath → file URL): its package.json `exports`
 * (the npm build), else its deno.json `exports` (the sources).
 */
export function coreEntryPoints(root: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const manifest of ["package.json", "deno.json"]) {
    const exports = readJson(join(root, manifest))?.exports;
    if (exports === null || typeof exports !== "object") continue;
    for (const [subpath, value] of Object.entries(exports as Record<string, unknown>)) {
      const target = exportTarget(value);
      if (target !== null && !target.endsWith(".d.ts")) {
        entries.set(subpath, pathToFileURL(join(root, target)).href);
      }
    }
    if (entries.size > 0) break;
  }
  return entries;
}

/** The file of the link package that stands for `subpath` (`.` → `index.js`). */
function fileOf(subpath: string): string {
  return subpath === "." ? "index.js" : `${subpath.replace(/^\.\//, "").replaceAll("/", "_")}.js`;
}

/**
 * Makes `<home>/node_modules/@bub/core` re-export the running copy of `@bub/core`: written when
 * missing or when it names another copy (the running one moved); a package there that Bub did not
 * write is left alone. Does nothing when `home` does not exist or Bub was not loaded from files.
 * Returns the link package's folder when it is Bub's, else null.
 *
 * @throws {Error} when the files cannot be written
 */
export function ensureCoreLink(home: string, from: string = import.meta.url): string | null {
  const root = runningPackageRoot(from);
  if (root === null || !existsSync(home)) return null;
  const dir = join(home, "node_modules", "@bub", "core");
  const current = readJson(join(dir, "package.json"));
  if (current !== null && typeof current[MARKER] !== "string") return null;
  const entries = coreEntryPoints(root);
  if (entries.size === 0) return null;
  const exports: Record<string, string> = {};
  for (const subpath of entries.keys()) exports[subpath] = `./${fileOf(subpath)}`;
  const manifest = JSON.stringify(
    {
      name: "@bub/core",
      version: String(readJson(join(root, "package.json"))?.version ?? "0.0.0"),
      private: true,
      type: "module",
      description: "Written by Bub: re-exports the running @bub/core, so plugins share its classes",
      [MARKER]: root,
      exports,
    },
    null,
    2,
  ) + "\n";
  if (current !== null && readFileSync(join(dir, "package.json"), "utf8") === manifest) return dir;
  mkdirSync(dir, { recursive: true });
  for (const [subpath, url] of entries) {
    writeFileSync(join(dir, fileOf(subpath)), `export * from ${JSON.stringify(url)};\n`);
  }
  // The manifest last and whole: a half-written link is rewritten on the next start.
  const temporary = join(dir, `.package.json.${process.pid}`);
  writeFileSync(temporary, manifest);
  renameSync(temporary, join(dir, "package.json"));
  return dir;
}
