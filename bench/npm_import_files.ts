/**
 * Lists the files Node loads when a module of the npm build is imported, with their sizes: the
 * package's own files first, then its dependencies. Cold import time follows the number and size
 * of these files. Run after `deno task build:npm`:
 *
 *     scripts/tool node bench/npm_import_files.ts [npm/dist/mod.js]
 */
import { statSync } from "node:fs";
import { registerHooks } from "node:module";
import { relative, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";

const target = resolve(process.argv[2] ?? "npm/dist/mod.js");
const own = resolve(target, "..", "..");
const loaded: { path: string; bytes: number }[] = [];
registerHooks({
  load(url, context, next) {
    if (url.startsWith("file:")) {
      const path = fileURLToPath(url);
      loaded.push({ path, bytes: statSync(path).size });
    }
    return next(url, context);
  },
});
await import(pathToFileURL(target).href);

const kb = (bytes: number): string => (bytes / 1024).toFixed(1).padStart(7);
for (
  const [label, files] of [
    ["own", loaded.filter((file) => file.path.startsWith(own + "/dist/"))],
    ["dependencies", loaded.filter((file) => !file.path.startsWith(own + "/dist/"))],
  ] as const
) {
  const total = files.reduce((sum, file) => sum + file.bytes, 0);
  console.log(`${label}: ${files.length} files, ${kb(total).trim()} KB`);
  for (const file of files.toSorted((a, b) => b.bytes - a.bytes)) {
    console.log(`${kb(file.bytes)} KB  ${relative(process.cwd(), file.path)}`);
  }
}
