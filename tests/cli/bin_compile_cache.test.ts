/**
 * Issue 11 (cold import): the `bub` bin turns on Node's compile cache before it imports the CLI,
 * so a second start reuses the compiled code; `NODE_DISABLE_COMPILE_CACHE=1` still turns it off.
 * Deno and Bun have no such cache: there the bin only has to keep working.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { VERSION } from "../../src/version.ts";
import { cleanupStack, runCli, tempDirs } from "./_spawn.ts";

const isNode = !("Deno" in globalThis) && !("Bun" in globalThis);

/** The files Node's compile cache wrote under `tmp` (its default folder is `<TMPDIR>/node-compile-cache`). */
function cachedFiles(tmp: string): string[] {
  const root = join(tmp, "node-compile-cache");
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
}

describe("the bub bin and Node's compile cache", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test("bub --version fills the compile cache on Node (and works everywhere)", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const env = { NODE_COMPILE_CACHE: undefined, NODE_DISABLE_COMPILE_CACHE: undefined };
    const first = await runCli(dirs, ["--version"], { env });
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, `${VERSION}\n`);
    if (!isNode) return;
    const files = cachedFiles(dirs.tmp);
    assert.ok(files.length > 10, `compile cache files: ${files.length}`);
    const second = await runCli(dirs, ["--version"], { env });
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout, `${VERSION}\n`);
  });

  test("NODE_DISABLE_COMPILE_CACHE=1 keeps the cache off", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const env = { NODE_COMPILE_CACHE: undefined, NODE_DISABLE_COMPILE_CACHE: "1" };
    const result = await runCli(dirs, ["--version"], { env });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `${VERSION}\n`);
    assert.deepEqual(cachedFiles(dirs.tmp), []);
  });
});
