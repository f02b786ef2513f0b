/**
 * A folder's `_`-prefixed files are its own: no file of another top-level folder of `src/`
 * imports them (statically, type-only or by a dynamic `import()`). A file is private when its
 * name, or a folder between the top-level folder and it, starts with `_`; subfolders count as
 * their top-level folder (`src/tape/file/_lock.ts` is the tape's own). `src/_internal/` exists
 * for sharing and is open to every folder. What two folders share lives in a public file of the
 * folder that owns it, or in `src/_internal/`.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The folder every other folder may import privately. */
const SHARED = "_internal";

/** Exceptions to the rule: none. Add nothing; move what is shared instead. */
const ALLOWED: readonly string[] = [];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = posix.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

const STATEMENT =
  /^(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']|^import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm;

/** The repo-relative targets of `file`'s relative imports. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), "utf8");
  const out = new Set<string>();
  for (const match of text.matchAll(STATEMENT)) {
    const specifier = match[1] ?? match[2] ?? match[3] ?? "";
    if (specifier.startsWith(".")) {
      out.add(posix.normalize(posix.join(posix.dirname(file), specifier)));
    }
  }
  return [...out];
}

/** `src/<top>/...` → `<top>`; a file directly in `src/` has no folder (""). */
function topFolder(path: string): string {
  const parts = path.split("/");
  return parts.length > 2 ? parts[1]! : "";
}

/** True when a part of `path` below its top-level folder starts with `_`. */
function isPrivate(path: string): boolean {
  return path.split("/").slice(2).some((part) => part.startsWith("_"));
}

/** Every `importer -> target` where the target is another folder's private file. */
function foreignPrivateImports(files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    for (const target of importsOf(file)) {
      const owner = topFolder(target);
      if (owner === topFolder(file) || owner === SHARED || !isPrivate(target)) continue;
      found.push(`${file} -> ${target}`);
    }
  }
  return found.sort();
}

test("the rule reads folders and privacy from the path", () => {
  assert.equal(topFolder("src/tape/file/_lock.ts"), "tape");
  assert.equal(isPrivate("src/tape/file/_lock.ts"), true);
  assert.equal(isPrivate("src/tape/_file/lock.ts"), true);
  assert.equal(isPrivate("src/tape/file_store.ts"), false);
  assert.equal(isPrivate("src/_vendor/yaml.js"), false);
  assert.equal(topFolder("src/version.ts"), "");
});

test("no file of src/ imports another folder's private file (src/_internal excepted)", () => {
  const files = sourceFiles("src");
  assert.ok(files.length > 100, "expected the source tree under src/");
  const found = foreignPrivateImports(files);
  assert.deepEqual(
    found.filter((pair) => !ALLOWED.includes(pair)),
    [],
    "import(s) of another folder's private file: move what is shared into a public file of " +
      "its folder or into src/_internal/",
  );
  assert.deepEqual(
    ALLOWED.filter((pair) => !found.includes(pair)),
    [],
    "an allowed import is gone: remove it from ALLOWED",
  );
});
