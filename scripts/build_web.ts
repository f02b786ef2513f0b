/**
 * Writes `src/channels/web/_page_bundle.ts`, the console page bundled from
 * `src/channels/web/page/` (see `_web_bundle.ts`). Run with `deno task build:web`; the npm
 * build runs it too. With `--check` it writes nothing and fails when the committed module is
 * stale (CI).
 */
import { writeFileSync } from "node:fs";
import { relative } from "node:path";
import process from "node:process";
import { buildWebBundle, BUNDLE_PATH, committedWebBundle, ROOT } from "./_web_bundle.ts";

const text = await buildWebBundle();
if (text === committedWebBundle()) {
  console.log(`${relative(ROOT, BUNDLE_PATH)} is up to date`);
} else if (process.argv.includes("--check")) {
  console.error(
    `${relative(ROOT, BUNDLE_PATH)} is stale: run \`deno task build:web\` and commit it`,
  );
  process.exit(1);
} else {
  writeFileSync(BUNDLE_PATH, text);
  console.log(`wrote ${relative(ROOT, BUNDLE_PATH)} (${text.length} chars)`);
}
