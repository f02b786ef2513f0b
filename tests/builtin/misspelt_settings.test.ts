/**
 * A misspelt config.yml key is reported with the key it probably meant instead of being ignored
 * silently: close to a builtin setting or section it is named once at start (`bub run` shows the
 * warning on stderr); a registered plugin section, a known key and a key far from every known
 * one are not reported.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { registerConfigSection } from "../../src/kernel/configure.ts";
import { misspeltSettings } from "../../src/builtin/misspelt_settings.ts";
import { runCli, tempDirs } from "../cli/_spawn.ts";

test("keys close to a known setting or section are reported with it; others are not", () => {
  registerConfigSection("weather_plugin", () => {});
  assert.deepEqual(
    misspeltSettings({
      modle: "openai:gpt-4o",
      max_step: 3,
      Model: "x",
      telegarm: {},
      mcp_server: {},
      model: "openai:gpt-4o",
      telegram: {},
      weather_plugin: {},
      my_own_thing: 1,
    }),
    [
      { key: "modle", meant: "model" },
      { key: "max_step", meant: "max_steps" },
      { key: "Model", meant: "model" },
      { key: "telegarm", meant: "telegram" },
      { key: "mcp_server", meant: "mcp_servers" },
    ],
  );
});

test("bub run names a misspelt key once on stderr and still runs", async (t) => {
  const dirs = tempDirs();
  t.after(() => dirs.remove());
  dirs.writeConfig("modle: openai:gpt-x\n");
  const result = await runCli(dirs, ["run", "--demo", "hi"], { timeoutMs: 60_000 });
  assert.equal(result.code, 0, result.stderr);
  const warnings = result.stderr.split("\n").filter((line) => line.includes("modle"));
  assert.equal(warnings.length, 1, result.stderr);
  // Each runtime's inspect quotes the names its own way ("modle" or 'modle').
  assert.match(
    warnings[0]!,
    /\[WRN\] .*unknown setting (["'])modle\1 is ignored; did you mean (["'])model\2\?$/,
  );
});
