/**
 * Which runtimes can run Bub: a Node older than 22.12 is refused with a line naming the version
 * found and the way out; Node 22.12 and later, Deno and Bun (whatever Node version they report)
 * are not; and the framework refuses to be created on an old Node.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { MIN_NODE_VERSION, unsupportedRuntime } from "../../src/_internal/runtime.ts";

test("a Node older than 22.12 is refused with the version found; newer ones and Deno/Bun are not", () => {
  assert.equal(MIN_NODE_VERSION, "22.12");
  for (const old of ["20.20.2", "22.11.0", "18.0.0", "21.99.1"]) {
    assert.equal(
      unsupportedRuntime(old, "node"),
      `Bub needs Node >= 22.12 (found ${old}): install a newer Node, or run Bub with Deno or ` +
        `Bun (bunx --bun @bub/core)`,
    );
  }
  for (const fine of ["22.12.0", "22.20.1", "23.0.0", "24.11.1", "30.1.0"]) {
    assert.equal(unsupportedRuntime(fine, "node"), null, fine);
  }
  assert.equal(unsupportedRuntime("20.0.0", "deno"), null, "Deno is judged by its own version");
  assert.equal(unsupportedRuntime("20.0.0", "bun"), null);
  assert.equal(unsupportedRuntime(undefined, "node"), null);
  assert.equal(unsupportedRuntime(), null, "the runtime running this test is supported");
});
