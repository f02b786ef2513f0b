import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { main } from "../../src/cli/main.ts";
import { tempDir } from "../_helpers/kernel.ts";

describe("plugin loading (kernel §2.4)", () => {
  test("a plugin module whose default export is a class is constructed with the framework and registered", async () => {
    using tmp = tempDir();
    writeFileSync(
      join(tmp.path, "greeter.mjs"),
      `export default class Greeter {
  constructor(framework) {
    if (typeof framework?.processInbound !== "function") throw new Error("no framework given");
    this.framework = framework;
  }
  resolveSession() { return "greeter"; }
}
`,
    );
    const configFile = join(tmp.path, "config.yml");
    writeFileSync(configFile, "plugins: [./greeter.mjs]\n");
    let out = "";
    let err = "";
    const code = await main(["hooks"], {
      stdout: (text) => void (out += text),
      stderr: (text) => void (err += text),
      framework: { loadDotenv: false, configFile, home: tmp.path, workspace: tmp.path },
      configureLogging: false,
    });
    assert.equal(code, 0, err);
    assert.ok(out.trim().split("\n").includes("resolveSession: builtin, ./greeter.mjs"), out);
  });
});
