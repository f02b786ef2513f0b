/**
 * Tape data and config files are private: folders are created 0700, files 0600 (POSIX only).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { SqliteTapeStore } from "../../src/tape/sqlite_store.ts";
import { withFileLock } from "../../src/tape/file/_lock.ts";
import { saveConfigFile } from "../../src/kernel/configure.ts";
import { entryAt, tempDir } from "./_helpers.ts";

const posix = process.platform !== "win32";

function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

describe("file modes", { skip: !posix && "file modes are POSIX-only" }, () => {
  test("the file store creates BUB_HOME and its tapes folder 0700 and tape files (spill sidecars too) 0600", async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const home = join(dir, "home");
      const tapes = join(home, "tapes");
      await using store = new FileTapeStore(tapes);
      await store.append("session", entryAt("message", { content: "hi" }, "2026-01-01T00:00:00Z"));
      await store.append(
        "session__sidecar__spill",
        entryAt("spill", { output: "x".repeat(100) }, "2026-01-01T00:00:00Z"),
      );
      assert.equal(mode(home), 0o700);
      assert.equal(mode(tapes), 0o700);
      const files = readdirSync(tapes);
      assert.ok(files.length >= 2, files.join(", "));
      for (const file of files) assert.equal(mode(join(tapes, file)), 0o600, file);
    } finally {
      await cleanup();
    }
  });

  test("lock files are created 0600", async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const path = join(dir, "t.jsonl.lock");
      const seen = await withFileLock(path, () => Promise.resolve(mode(path)), {
        what: "test",
      });
      assert.equal(seen, 0o600);
    } finally {
      await cleanup();
    }
  });

  test("the SQLite store creates its database (and WAL files) 0600", async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const path = join(dir, "tapes.db");
      await using store = new SqliteTapeStore(path);
      await store.append("session", entryAt("message", { content: "hi" }, "2026-01-01T00:00:00Z"));
      assert.equal(mode(path), 0o600);
      for (const extra of [`${path}-wal`, `${path}-shm`]) {
        if (existsSync(extra)) assert.equal(mode(extra), 0o600, extra);
      }
    } finally {
      await cleanup();
    }
  });

  test("saveConfigFile writes config.yml 0600 in a 0700 folder, and tightens an existing file", async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const path = join(dir, "home", ".bub", "config.yml");
      saveConfigFile(path, { model: "openai:gpt-4o" });
      assert.equal(mode(path), 0o600);
      assert.equal(mode(join(dir, "home", ".bub")), 0o700);
      const open = join(dir, "open.yml");
      writeFileSync(open, "model: x\n", { mode: 0o644 });
      saveConfigFile(open, { model: "openai:gpt-4o" });
      assert.equal(mode(open), 0o600);
    } finally {
      await cleanup();
    }
  });
});
