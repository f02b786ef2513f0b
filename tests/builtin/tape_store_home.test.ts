import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { BubFramework } from "../../src/builtin/framework.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";

test("150: provideTapeStore roots the FileTapeStore at <BUB_HOME>/tapes", async () => {
  const home = mkdtempSync(join(tmpdir(), "bub-home-"));
  const previous = process.env.BUB_HOME;
  process.env.BUB_HOME = home;
  try {
    const bub = new BubFramework({ loadDotenv: false, configFile: join(home, "config.yml") });
    bub.loadBuiltinHooks();
    assert.equal(bub.home, home);
    await using _scope = await bub.running();
    const store = bub.getTapeStore();
    assert.ok(store instanceof FileTapeStore);
    assert.equal(store.directory, join(home, "tapes"));
  } finally {
    if (previous === undefined) delete process.env.BUB_HOME;
    else process.env.BUB_HOME = previous;
    rmSync(home, { recursive: true, force: true });
  }
});
