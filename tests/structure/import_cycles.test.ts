/**
 * Guards against new import cycles between the files of `src/`: reads every file's static
 * `import`/`export ... from` statements (type-only ones too) and finds the strongly connected
 * components of the graph. The list of known cycles is empty and must stay so.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Cycles left to break (issue 12 "Circles"); each entry is the sorted files of one cycle. None. */
const KNOWN: readonly string[][] = [];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = posix.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

const STATEMENT =
  /^(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']|^import\s*["']([^"']+)["']/gm;

/** The repo-relative files `file` imports statically by a relative specifier. */
function importsOf(file: string, known: ReadonlySet<string>): string[] {
  const text = readFileSync(join(root, file), "utf8");
  const out = new Set<string>();
  for (const match of text.matchAll(STATEMENT)) {
    const specifier = match[1] ?? match[2] ?? "";
    if (!specifier.startsWith(".")) continue;
    const target = posix.normalize(posix.join(posix.dirname(file), specifier));
    if (known.has(target)) out.add(target);
  }
  return [...out];
}

/** The strongly connected components with more than one file (Tarjan). */
function cycles(graph: ReadonlyMap<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let top: string;
    do {
      top = stack.pop()!;
      onStack.delete(top);
      component.push(top);
    } while (top !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

test("src/ has no import cycle beyond the known ones, and every known one still exists", () => {
  const files = sourceFiles("src");
  assert.ok(
    files.length > 100,
    `expected the source tree under ${relative(".", root) || "."}${sep}src`,
  );
  const known = new Set(files);
  const graph = new Map(files.map((file) => [file, importsOf(file, known)]));
  const found = cycles(graph).map((files) => files.join(" ↔ ")).sort();
  const expected = KNOWN.map((files) => files.join(" ↔ ")).sort();
  assert.deepEqual(
    found.filter((cycle) => !expected.includes(cycle)),
    [],
    "new import cycle(s): move the shared names into a file both sides can import",
  );
  assert.deepEqual(
    expected.filter((cycle) => !found.includes(cycle)),
    [],
    "a known cycle is gone: remove it from KNOWN",
  );
});
