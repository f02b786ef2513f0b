import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { demoResponder, MockLlmServer } from "../../src/testing/mod.ts";
import { isProgramEntry } from "../../src/cli/_program.ts";
import { cleanupStack, ROOT, runScript, tempDirs } from "./_spawn.ts";

const CLI_MODULE = join(ROOT, "src", "cli", "mod.ts");

describe("the ./cli export", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test("run as the main module it is the bub program (run a turn against the mock model)", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const server = await MockLlmServer.start({ script: demoResponder });
    cleanup.defer(() => server.close());
    const result = await runScript(CLI_MODULE, dirs, ["run", "hi"], {
      env: { BUB_MODEL: "custom:demo", BUB_API_BASE: server.url, BUB_API_KEY: "k" },
      timeoutMs: 60_000,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /You said:\*\* hi/);
  });

  test("imported by another module it only exports main: nothing runs, the process exits", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const script = join(ROOT, "tests", "fixtures", "cli_importer.ts");
    const result = await runScript(script, dirs, ["run", "hi"], { timeoutMs: 60_000 });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "main is a function\n");
  });

  test("a bundle that inlined the CLI module is not taken for it", () => {
    assert.equal(isProgramEntry("file:///pkg/src/cli/mod.ts", true), true);
    assert.equal(isProgramEntry("https://jsr.io/@bub/core/0.1.0/src/cli/mod.ts", true), true);
    assert.equal(isProgramEntry("file:///pkg/dist/src/cli/mod.js", true), true);
    assert.equal(isProgramEntry("file:///pkg/src/cli/mod.ts", false), false);
    assert.equal(isProgramEntry("file:///pkg/src/cli/mod.ts", undefined), false);
    assert.equal(isProgramEntry("file:///app/out.mjs", true), false);
  });
});
