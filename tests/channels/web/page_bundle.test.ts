/**
 * The committed console page bundle (`src/channels/web/_page_bundle.ts`) is what
 * `scripts/build_web.ts` makes from `src/channels/web/page/` now: the page is rebuilt in memory
 * with esbuild and compared, so a stale bundle fails here (run `deno task build:web`).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { buildWebBundle, committedWebBundle } from "../../../scripts/_web_bundle.ts";
import { PAGE_CSS, PAGE_JS } from "../../../src/channels/web/page.ts";

describe("web console page bundle", () => {
  test("the committed bundle matches a fresh build of the page sources", async () => {
    const fresh = await buildWebBundle();
    assert.ok(
      fresh === committedWebBundle(),
      "src/channels/web/_page_bundle.ts is stale: run `deno task build:web` and commit it",
    );
    assert.ok(PAGE_JS.length > 1000 && PAGE_CSS.length > 100);
    assert.ok(!/\bimport\s*[("{]|\bfrom\s*"/.test(PAGE_JS), "one module, nothing imported");
  });
});
