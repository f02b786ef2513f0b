import { test } from "node:test";
import assert from "node:assert/strict";
import {
  canRequire,
  lazyImport,
  lazyModule,
  preloadDependencies,
} from "../../src/_internal/lazy.ts";
import { zod } from "../../src/_internal/zod.ts";

test("lazyModule loads a package on the first call and returns the same module afterwards", () => {
  const yaml = lazyModule<typeof import("yaml")>("yaml", () => import("yaml"));
  const first = yaml();
  assert.deepEqual(first.parse("a: 1\nb: [x, y]"), { a: 1, b: ["x", "y"] });
  assert.equal(yaml(), first);
});

test("lazyModule of an ES-module-only package gives the instance `import` gives", async () => {
  const marked = lazyModule<typeof import("marked")>("marked", () => import("marked"));
  const imported = await import("marked");
  assert.equal(marked().Lexer, imported.Lexer);
  assert.equal(marked().Lexer.lex("# Hi")[0]?.type, "heading");
});

test("lazyModule reports a missing package when called, not when created, and retries", () => {
  const missing = lazyModule<unknown>(
    "bub-no-such-package-for-tests",
    () => Promise.reject(new Error("missing")),
  );
  assert.throws(() => missing(), /bub-no-such-package-for-tests/);
  assert.throws(() => missing(), /bub-no-such-package-for-tests/);
});

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

test("the lazily required zod validates and converts schemas built by the imported zod", async () => {
  const { z } = await import("zod");
  const schema = z.object({ path: z.string().describe("A path.") });
  const json = zod().toJSONSchema(schema, { io: "input" }) as unknown as {
    properties: { path: { description?: string } };
  };
  assert.equal(json.properties.path.description, "A path.");
  assert.equal(zod().object({ n: zod().int() }).safeParse({ n: 1.5 }).success, false);
});

test("lazyModule.preload imports the module, after which the loader answers synchronously", async () => {
  const yaml = lazyModule<typeof import("yaml")>("yaml", () => import("yaml"));
  const preloaded = await yaml.preload();
  assert.equal(yaml(), preloaded);
  assert.equal(typeof preloaded.parse, "function");
});

test("preloadDependencies is a no-op where the package sits on disk (require works)", async () => {
  assert.equal(canRequire(), true);
  await preloadDependencies();
});
