/**
 * `<home>/node_modules/@bub/core`, the package through which plugins kept in Bub's home import
 * the running `@bub/core` (issue 33 item 4): it re-exports the running copy's entry points, is
 * rewritten when that copy moved, and a package of the user's own there is left alone.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ensureCoreLink, runningPackageRoot } from "../../src/kernel/_core_link.ts";

/** A fake copy of @bub/core at `dir` (deno.json exports, as the sources have). */
function fakeCopy(dir: string): string {
  mkdirSync(join(dir, "src", "kernel"), { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "@bub/core", version: "9.0.0" }));
  writeFileSync(
    join(dir, "deno.json"),
    JSON.stringify({ exports: { ".": "./mod.ts", "./kernel": "./src/kernel/mod.ts" } }),
  );
  return pathToFileURL(join(dir, "src", "kernel", "_core_link.ts")).href;
}

describe("the @bub/core link package in Bub's home", () => {
  let root = "";
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  test("re-exports the running copy, and is rewritten when the copy moved", () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), "bub-core-link-")));
    const home = join(root, "home");
    mkdirSync(home);
    const first = fakeCopy(join(root, "first"));
    const link = ensureCoreLink(home, first);
    assert.equal(link, join(home, "node_modules", "@bub", "core"));
    const manifest = JSON.parse(readFileSync(join(link!, "package.json"), "utf8"));
    assert.deepEqual(manifest.exports, { ".": "./index.js", "./kernel": "./kernel.js" });
    assert.equal(manifest.version, "9.0.0");
    assert.equal(
      readFileSync(join(link!, "kernel.js"), "utf8"),
      `export * from ${
        JSON.stringify(pathToFileURL(join(root, "first/src/kernel/mod.ts")).href)
      };\n`,
    );

    const second = fakeCopy(join(root, "second"));
    ensureCoreLink(home, second);
    assert.match(readFileSync(join(link!, "index.js"), "utf8"), /\/second\/mod\.ts"/);
  });

  test("a package of the user's own is left alone; no home, no link", () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), "bub-core-link-")));
    const home = join(root, "home");
    const own = join(home, "node_modules", "@bub", "core");
    mkdirSync(own, { recursive: true });
    const text = JSON.stringify({ name: "@bub/core", version: "0.1.0", main: "x.js" });
    writeFileSync(join(own, "package.json"), text);
    assert.equal(ensureCoreLink(home, fakeCopy(join(root, "copy"))), null);
    assert.equal(readFileSync(join(own, "package.json"), "utf8"), text);
    assert.equal(ensureCoreLink(join(root, "missing"), fakeCopy(join(root, "copy"))), null);
  });

  test("the running copy is this checkout", () => {
    const here = runningPackageRoot();
    assert.ok(here !== null);
    assert.equal(JSON.parse(readFileSync(join(here, "package.json"), "utf8")).name, "@bub/core");
  });
});
