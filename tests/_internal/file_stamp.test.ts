import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StampCache, stampOf } from "../../src/_internal/file_stamp.ts";

describe("file stamps", () => {
  test("a directory changed twice within one clock tick never gives a cached listing back", () => {
    const dir = mkdtempSync(join(tmpdir(), "bub-stamp-"));
    try {
      const cache = new StampCache<string[]>();
      mkdirSync(join(dir, "a"));
      cache.set(dir, stampOf(statSync(dir)), ["a"]);
      mkdirSync(join(dir, "b")); // often the same mtime, size and inode as after "a"
      assert.equal(cache.get(dir, stampOf(statSync(dir))), undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a stamp is stable once its newest time is 2 s old, and unique while it is newer", () => {
    const stats = statSync(tmpdir());
    const newest = Math.max(stats.mtimeMs, stats.ctimeMs);
    assert.equal(stampOf(stats, newest + 5_000), stampOf(stats, newest + 5_000));
    assert.notEqual(stampOf(stats, newest + 10), stampOf(stats, newest + 10));
    const cache = new StampCache<number>();
    cache.set("k", stampOf(stats, newest + 5_000), 1);
    assert.equal(cache.get("k", stampOf(stats, newest + 6_000)), 1);
  });
});
