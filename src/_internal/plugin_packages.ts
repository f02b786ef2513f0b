/**
 * Plugins installed as packages in Bub's plugin project (`<home>/plugins`, where
 * `bub install` puts them): which package a `plugins:` entry names, and the file it imports.
 * A `jsr:@scope/name` entry names `@jsr/scope__name`, the package JSR's npm registry serves.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { runtimeKey } from "./runtime.ts";

/** The package a `plugins:` entry names and the subpath in it (`.` for its main entry). */
export interface PackageRef {
  /** The npm package name (`greet`, `@scope/name`, `@jsr/scope__name`). */
  readonly name: string;
  /** `.` or `./sub/path`. */
  readonly subpath: string;
}

const NAME = String.raw`(@[a-z0-9][\w.-]*\/[\w.-]+|[a-z0-9][\w.-]*)`;

/**
 * The package `specifier` names: a bare name (`greet`, `@scope/name/sub`), `npm:name@range`, or
 * `jsr:@scope/name@range` (→ `@jsr/scope__name`); null for paths and URLs.
 */
export function packageRefOf(specifier: string): PackageRef | null {
  if (
    specifier.startsWith(".") || specifier.startsWith("~") || isAbsolute(specifier) ||
    /^(file|https?|data|node):/.test(specifier)
  ) {
    return null;
  }
  const jsr = /^jsr:\/?@([a-z0-9][\w-]*)\/([a-z0-9][\w-]*)(?:@[^/]*)?(\/.*)?$/i.exec(specifier);
  if (jsr) return { name: `@jsr/${jsr[1]}__${jsr[2]}`, subpath: jsr[3] ? `.${jsr[3]}` : "." };
  if (specifier.startsWith("jsr:")) return null;
  const rest = specifier.startsWith("npm:") ? specifier.slice(4).replace(/^\//, "") : specifier;
  const match = new RegExp(`^${NAME}(?:@[^/]*)?(/.*)?$`, "i").exec(rest);
  if (!match) return null;
  return { name: match[1]!, subpath: match[2] ? `.${match[2]}` : "." };
}

/** The conditions Bub imports with, in order. */
function conditions(): string[] {
  return [runtimeKey(), "node", "import", "default"];
}

function resolveTarget(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    for (const item of value) {
      const target = resolveTarget(item);
      if (target !== null) return target;
    }
    return null;
  }
  if (value === null || typeof value !== "object") return null;
  const map = value as Record<string, unknown>;
  for (const condition of conditions()) {
    if (condition in map) {
      const target = resolveTarget(map[condition]);
      if (target !== null) return target;
    }
  }
  return null;
}

/** The file (relative to the package) `subpath` maps to in a package.json `exports` field. */
function exportsTarget(exports: unknown, subpath: string): string | null {
  const keyed = exports !== null && typeof exports === "object" && !Array.isArray(exports) &&
    Object.keys(exports).some((key) => key.startsWith("."));
  if (!keyed) return subpath === "." ? resolveTarget(exports) : null;
  const map = exports as Record<string, unknown>;
  if (subpath in map) return resolveTarget(map[subpath]);
  for (const [key, value] of Object.entries(map)) {
    const star = key.indexOf("*");
    if (star < 0) continue;
    const [head, tail] = [key.slice(0, star), key.slice(star + 1)];
    if (subpath.startsWith(head) && subpath.endsWith(tail) && subpath.length >= key.length - 1) {
      const target = resolveTarget(value);
      return target?.replaceAll("*", subpath.slice(head.length, subpath.length - tail.length)) ??
        null;
    }
  }
  return null;
}

/**
 * The file `specifier` imports from the packages installed in `project` (its `node_modules`),
 * or null when it names no package installed there.
 *
 * @throws {TypeError} when the package is there but exports nothing at that subpath
 */
export function installedPluginFile(project: string, specifier: string): string | null {
  const ref = packageRefOf(specifier);
  if (ref === null) return null;
  const dir = join(project, "node_modules", ref.name);
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  } catch {
    return null;
  }
  const target = manifest.exports !== undefined
    ? exportsTarget(manifest.exports, ref.subpath)
    : ref.subpath !== "."
    ? ref.subpath
    : typeof manifest.main === "string"
    ? manifest.main
    : "index.js";
  if (target === null) {
    throw new TypeError(
      `Package "${ref.name}" in ${
        join(project, "node_modules")
      } exports nothing at "${ref.subpath}"`,
    );
  }
  return join(dir, target);
}
