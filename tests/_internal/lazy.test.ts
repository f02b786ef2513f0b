import { test } from "node:test";
import assert from "node:assert/strict";
import { lazyImport } from "../../src/_internal/lazy.ts";

test("lazyImport runs the import once for concurrent and later calls", async () => {
  let calls = 0;
  const load = lazyImport(() => {
    calls++;
    return import("yaml");
  });
  const [a, b] = await Promise.all([load(), load()]);
  assert.equal(a, b);
  assert.equal(await load(), a);
  assert.equal(calls, 1);
});

test("lazyImport does not keep a failed import: the next call tries again", async () => {
  let calls = 0;
  const load = lazyImport(() => {
    calls++;
    return calls === 1 ? Promise.reject(new Error("offline")) : Promise.resolve({ ok: true });
  });
  await assert.rejects(load(), /offline/);
  assert.deepEqual(await load(), { ok: true });
  assert.equal(calls, 2);
});
