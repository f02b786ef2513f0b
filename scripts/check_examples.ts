/**
 * Fails when a symbol that a public entry (deno.json "exports") exports has no `@example` in its
 * JSDoc (std's rule). `deno test --doc` then runs every example; this script makes sure there is
 * one to run. Re-exports count for the declaration they point at. Run with
 * `deno run -A scripts/check_examples.ts` (CI and `deno task check` do); `--list` prints every
 * symbol without an example and exits 0.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";

const ROOT = new URL("..", import.meta.url).pathname;

/** Symbols allowed to lack an example for now (a stale entry is reported): none. */
const PENDING = new Set<string>([]);

interface Location {
  filename: string;
  line: number;
}
interface Declaration {
  kind: string;
  location: Location;
  declarationKind?: string;
  jsDoc?: { tags?: { kind: string }[] };
  def?: { target?: Location };
}
interface DocJson {
  nodes: Record<string, { symbols?: { name: string; declarations: Declaration[] }[] }>;
}

const exportsMap = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8")).exports as Record<
  string,
  string
>;
const doc: DocJson = JSON.parse(
  execFileSync(process.execPath, ["doc", "--json", ...Object.values(exportsMap)], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  }),
);

const relative = (filename: string) => filename.replace(new URL("..", import.meta.url).href, "");
/** `<file> <name>` → whether one of its declarations has an example. */
const declared = new Map<string, boolean>();
const referenced = new Set<string>();
for (const node of Object.values(doc.nodes)) {
  for (const symbol of node.symbols ?? []) {
    for (const declaration of symbol.declarations) {
      if (declaration.declarationKind === "private" || declaration.kind === "import") continue;
      if (declaration.kind === "reference" && declaration.def?.target) {
        referenced.add(`${relative(declaration.def.target.filename)} ${symbol.name}`);
        continue;
      }
      const key = `${relative(declaration.location.filename)} ${symbol.name}`;
      const hasExample = (declaration.jsDoc?.tags ?? []).some((tag) => tag.kind === "example");
      declared.set(key, (declared.get(key) ?? false) || hasExample);
    }
  }
}
for (const key of referenced) if (!declared.has(key)) declared.set(key, false);

const missing = [...declared].filter(([, ok]) => !ok).map(([key]) => key).sort();
const total = declared.size;
console.log(`public symbols with an @example: ${total - missing.length} of ${total}`);
if (process.argv.includes("--list")) {
  for (const key of missing) console.log(`  ${key}`);
  process.exit(0);
}
const unexpected = missing.filter((key) => !PENDING.has(key));
const stale = [...PENDING].filter((key) => !missing.includes(key));
for (const key of unexpected) console.error(`missing @example: ${key}`);
for (const key of stale) {
  console.warn(`not missing an @example any more, drop it from PENDING: ${key}`);
}
if (unexpected.length > 0) process.exit(1);
