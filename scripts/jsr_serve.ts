/**
 * Serves the package over HTTP on 127.0.0.1 the way JSR serves it: only the files `publish`
 * ships, with bare specifiers unfurled to `npm:<name>@<version>` (from the `imports` of deno.json
 * and the dependencies of package.json), as `deno publish` rewrites them. Prints the base URL
 * (`http://127.0.0.1:<port>/`) on its first line; stops on SIGINT/SIGTERM. Used by
 * scripts/smoke_jsr.sh.
 *
 * Usage: deno run -A scripts/jsr_serve.ts [package-root]
 */
import { readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize, resolve } from "node:path";
import process from "node:process";

const root = resolve(process.argv[2] ?? new URL("..", import.meta.url).pathname);
const denoJson = JSON.parse(readFileSync(join(root, "deno.json"), "utf8"));
const packageJson = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

/** Bare package name → the specifier JSR writes in its place. */
const unfurl = new Map<string, string>();
for (
  const [name, version] of Object.entries({
    ...packageJson.optionalDependencies,
    ...packageJson.dependencies,
  } as Record<string, string>)
) {
  unfurl.set(name, `npm:${name}@${version}`);
}
for (const [name, target] of Object.entries((denoJson.imports ?? {}) as Record<string, string>)) {
  unfurl.set(name.replace(/\/$/, ""), target.replace(/\/$/, ""));
}

function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/** Rewrites the bare specifiers of one module's imports, exports and `import()` calls. */
export function unfurlSpecifiers(source: string): string {
  return source.replace(
    /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])([^"'\s]+)\2/g,
    (whole, lead: string, quote: string, specifier: string) => {
      if (/^(\.|\/|[a-z][a-z0-9+.-]*:)/i.test(specifier)) return whole;
      const name = packageName(specifier);
      const target = unfurl.get(name);
      // Not a dependency (e.g. `@bub/core` in a doc example): left as is, as JSR leaves comments.
      if (target === undefined) return whole;
      return `${lead}${quote}${target}${specifier.slice(name.length)}${quote}`;
    },
  );
}

/** True for the files `deno publish` ships (see `publish.include` in deno.json). */
function published(path: string): boolean {
  return path === "mod.ts" || path === "deno.json" || path === "package.json" ||
    path === "README.md" || path === "LICENSE" || path.startsWith("src/");
}

const TYPES: Record<string, string> = {
  ".ts": "application/typescript; charset=utf-8",
  ".md": "text/markdown; charset=utf-8",
  ".json": "application/json; charset=utf-8",
};

const server = createServer((request, response) => {
  const path = normalize(decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname))
    .replace(/^\/+/, "");
  const file = join(root, path);
  let body: string | Uint8Array;
  try {
    if (!published(path) || path.includes("..") || !statSync(file).isFile()) throw new Error();
    body = path.endsWith(".ts") ? unfurlSpecifiers(readFileSync(file, "utf8")) : readFileSync(file);
  } catch (error) {
    response.writeHead(404, { "content-type": "text/plain" });
    response.end(error instanceof Error && error.message ? error.message : "not found");
    return;
  }
  response.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" });
  response.end(body);
});

server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  console.log(`http://127.0.0.1:${port}/`);
});
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => server.close(() => process.exit(0)));
}
