import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BubFramework } from "../../mod.ts";
import { createCliApp } from "../../src/cli/mod.ts";

describe("createCliApp", () => {
  test("framework.createCliApp() (pinned) and createCliApp(framework) of ./cli build the bub program with the builtin commands", () => {
    const dir = mkdtempSync(join(tmpdir(), "bub-cliapp-"));
    try {
      const framework = new BubFramework({ configFile: join(dir, "config.yml") });
      framework.loadBuiltinHooks();
      for (const app of [framework.createCliApp(), createCliApp(framework)]) {
        assert.equal(app.name(), "bub");
        const names = app.commands.map((command) => command.name());
        for (const name of ["run", "chat", "gateway", "web", "onboard", "hooks"]) {
          assert.ok(names.includes(name), `${name} missing from ${names.join(", ")}`);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("without any plugin the program has a help command that says no command is loaded", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bub-cliapp-"));
    try {
      const framework = new BubFramework({ configFile: join(dir, "config.yml") });
      const app = framework.createCliApp();
      let out = "";
      app.configureOutput({ writeOut: (text) => (out += text) });
      await app.parseAsync(["help"], { from: "user" });
      assert.equal(out, "No CLI command loaded.\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
