/**
 * Preloaded into a Node child (`node --import`): records the URL of every module resolved and
 * writes the list, one per line, to the file named by `BUB_TEST_LOADED_FILE` at exit.
 *
 * @module
 */
import { registerHooks } from "node:module";
import { writeFileSync } from "node:fs";
import process from "node:process";

const loaded = new Set<string>();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const result = nextResolve(specifier, context);
    loaded.add(result.url);
    return result;
  },
});
process.on("exit", () => {
  const file = process.env.BUB_TEST_LOADED_FILE;
  if (file) writeFileSync(file, [...loaded].join("\n"));
});
