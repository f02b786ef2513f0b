/**
 * The runtime is decided in one file: `src/_internal/runtime.ts` (`runtimeKey()`). Any other
 * file of `src/` that sniffs globals for the runtime (`"Bun" in globalThis`, `typeof Deno`,
 * `process.versions.bun` / `.deno`, a cast of `globalThis` to reach `Deno`/`Bun` only to test
 * for them) fails this test; calling a runtime's own API after `runtimeKey()` chose it is fine.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const OWNER = "src/_internal/runtime.ts";
const SNIFF = [
  /["'](?:Bun|Deno)["']\s+in\s+globalThis/,
  /typeof\s+(?:globalThis\.)?(?:Bun|Deno)\b/,
  /versions\.(?:bun|deno)\b/,
  /versions\[["'](?:bun|deno)["']\]/,
];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = posix.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "_vendor" ? [] : sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

test("only src/_internal/runtime.ts tells the runtimes apart", () => {
  const offenders = sourceFiles("src").filter((file) => {
    if (file === OWNER) return false;
    const text = readFileSync(join(root, file), "utf8");
    return SNIFF.some((pattern) => pattern.test(text));
  });
  assert.deepEqual(
    offenders,
    [],
    `sniff the runtime through runtimeKey(): ${offenders.join(", ")}`,
  );
});
