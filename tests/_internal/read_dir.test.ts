import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readdirQuiet } from "../../src/_internal/read_dir.ts";

describe("readdirQuiet", () => {
  test("lists a directory's names and gives none for a missing path or a file", () => {
    const dir = mkdtempSync(join(tmpdir(), "bub-readdir-"));
    try {
      writeFileSync(join(dir, "a.txt"), "");
      assert.deepEqual(readdirQuiet(dir), ["a.txt"]);
      assert.deepEqual(readdirQuiet(join(dir, "missing")), []);
      assert.deepEqual(readdirQuiet(join(dir, "a.txt")), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
