/**
 * The dependencies bundled into `src/_vendor/` (scripts/build_vendor.ts) are the installed
 * versions and work as the packages do. `ci.sh` also rebuilds them and fails when a committed
 * bundle differs (`build_vendor.ts --check`).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { parse, stringify } from "../../src/_vendor/yaml.js";
import { Command } from "../../src/_vendor/commander.js";

const ROOT = new URL("../../", import.meta.url);

function installed(name: string): string {
  return JSON.parse(readFileSync(new URL(`node_modules/${name}/package.json`, ROOT), "utf8"))
    .version;
}

describe("vendored dependencies", () => {
  for (const name of ["yaml", "commander"]) {
    test(`src/_vendor/${name}.js is the installed ${name} (rebuild with deno task build:vendor)`, () => {
      const header = readFileSync(new URL(`src/_vendor/${name}.js`, ROOT), "utf8").split("\n")[1];
      assert.match(header!, new RegExp(`^// ${name} ${installed(name).replaceAll(".", "\\.")} `));
    });
  }

  test("yaml parses and writes a config document, keeping key order", () => {
    const text =
      'model: openai:gpt-4o\ntelegram:\n  token: "a#b" # comment\n  allow_users: [1, 2]\n';
    const data = parse(text);
    assert.deepEqual(data, {
      model: "openai:gpt-4o",
      telegram: { token: "a#b", allow_users: [1, 2] },
    });
    assert.deepEqual(parse(stringify(data)), data);
    assert.deepEqual(Object.keys(parse(stringify({ z: 1, a: 2 }))), ["z", "a"]);
    assert.throws(() => parse("a: [1, 2"), /flow sequence|Missing/i);
  });

  test("commander parses options and runs an action, without exiting the process", async () => {
    let got: unknown = null;
    const app = new Command("bub").exitOverride().configureOutput({ writeErr: () => {} });
    app.command("run").argument("<message>").option("-m, --model <name>").action(
      (message, opts) => {
        got = { message, model: opts.model };
      },
    );
    await app.parseAsync(["run", "hi", "--model", "x"], { from: "user" });
    assert.deepEqual(got, { message: "hi", model: "x" });
    assert.throws(() => app.parse(["nope"], { from: "user" }), /unknown command/);
  });
});
