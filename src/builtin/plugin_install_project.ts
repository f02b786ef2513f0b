/**
 * Bub's plugin project, `<BUB_HOME>/plugins`: a private npm project (`package.json`,
 * `package-lock.json`, `.npmrc`, its own `node_modules`) holding the plugins `bub install`
 * installed, and the file snapshots that undo a failed install.
 *
 * @module
 */
import {
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";

/** JSR's npm compatibility registry, serving `jsr:@scope/name` as `@jsr/scope__name`. */
export const JSR_NPM_REGISTRY = "https://npm.jsr.io";

/**
 * The plugin project of Bub's home `home`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pluginProjectDir } from "./plugin_install_project.ts";
 * assert.ok(pluginProjectDir("/home/a/.bub") === "/home/a/.bub/plugins");
 * ```
 */
export function pluginProjectDir(home: string): string {
  return join(home, "plugins");
}

/**
 * Creates the project when missing: a private ES-module `package.json` and an `.npmrc` sending
 * the `@jsr` scope to {@link JSR_NPM_REGISTRY} (an `@jsr:registry` line already there is kept, so
 * another registry can stand in).
 */
export function ensurePluginProject(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const manifest = join(dir, "package.json");
  if (!existsSync(manifest)) {
    const data = {
      name: "bub-plugins",
      private: true,
      type: "module",
      description: "Plugins installed by `bub install`",
      dependencies: {},
    };
    writeFileSync(manifest, JSON.stringify(data, null, 2) + "\n");
  }
  const npmrc = join(dir, ".npmrc");
  const text = existsSync(npmrc) ? readFileSync(npmrc, "utf8") : "";
  if (!/^\s*@jsr:registry\s*=/m.test(text)) {
    const line = `@jsr:registry=${JSR_NPM_REGISTRY}\n`;
    writeFileSync(npmrc, text === "" || text.endsWith("\n") ? text + line : `${text}\n${line}`);
  }
}

function readJson(path: string): Record<string, unknown> | null {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
}

/** The project's `dependencies` (name → range or `file:` path); `{}` when there is no project. */
export function projectDependencies(dir: string): Record<string, string> {
  const deps = readJson(join(dir, "package.json"))?.dependencies;
  return deps !== null && typeof deps === "object" ? deps as Record<string, string> : {};
}

/** The version of `name` installed in the project, or null. */
export function installedVersion(dir: string, name: string): string | null {
  const version = readJson(join(dir, "node_modules", name, "package.json"))?.version;
  return typeof version === "string" ? version : null;
}

/**
 * Where an installed package came from: `path` for a `file:` dependency, `jsr` for an `@jsr/`
 * package, else `npm`.
 */
export function packageSource(range: string | undefined, name: string): "npm" | "jsr" | "path" {
  if (range?.startsWith("file:")) return "path";
  return name.startsWith("@jsr/") ? "jsr" : "npm";
}

/**
 * The bytes of some files at one moment (null: the file did not exist).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { restoreFiles, snapshotFiles } from "./plugin_install_project.ts";
 * const snapshot = snapshotFiles(["/nonexistent/bub-example"]);
 * assert.equal(snapshot.get("/nonexistent/bub-example"), null);
 * restoreFiles(snapshot); // removes the file again, if it was written since
 * ```
 */
export type FileSnapshot = Map<string, Uint8Array | null>;

/** Reads `paths` as they are now. */
export function snapshotFiles(paths: readonly string[]): FileSnapshot {
  return new Map(paths.map((path) => [path, existsSync(path) ? readFileSync(path) : null]));
}

/** True when a file of `snapshot` differs from its bytes now. */
export function filesChanged(snapshot: FileSnapshot): boolean {
  for (const [path, bytes] of snapshot) {
    const now = existsSync(path) ? readFileSync(path) : null;
    if (bytes === null || now === null ? bytes !== now : Buffer.compare(bytes, now) !== 0) {
      return true;
    }
  }
  return false;
}

/** Puts every file of `snapshot` back byte for byte (mode kept), deleting those that were absent. */
export function restoreFiles(snapshot: FileSnapshot): void {
  for (const [path, bytes] of snapshot) {
    if (bytes === null) rmSync(path, { force: true });
    else writeFileAtomic(path, bytes);
  }
}

/** Writes `path` through a temporary file and a rename, keeping an existing file's mode. */
export function writeFileAtomic(path: string, data: Uint8Array | string, mode = 0o644): void {
  mkdirSync(dirname(path), { recursive: true });
  const keep = existsSync(path) ? statSync(path).mode & 0o777 : mode;
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, data, { mode: keep });
  renameSync(temporary, path);
}
