/**
 * Merges the chunks that are always loaded together into one file (used by scripts/build_npm.ts
 * after esbuild's code-splitting pass).
 *
 * Why: Node spends about 0.6 ms per module file it loads (resolve, package scope lookup, read,
 * compile, link), whatever its size. esbuild splits shared code by every combination of entry
 * points, dynamic imports included, so the root's static graph was 40 chunks.
 *
 * How: each chunk is keyed by the set of entries (the package's exports) whose static imports
 * reach it; chunks with the same key are bundled once more by esbuild (everything else stays
 * external) into `chunks/_merged-<entries>.js`, which exports every name they exported. Every
 * import of one of those chunks, static or dynamic, anywhere in the build, is pointed at the
 * merged file. So no entry loads code it did not load before, and each piece of code still lives
 * in exactly one file: a class is the same object from every subpath. If A imports B, every entry
 * that reaches A reaches B, so a merged file imports only files with a larger key and merging
 * makes no import cycle (checked anyway: the build fails if a group's imports lead back into it).
 */
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";

/** The part of esbuild's metafile the merge reads. */
export interface BuildMeta {
  outputs: Record<string, {
    imports: { path: string; kind: string; external?: boolean }[];
    exports: string[];
    entryPoint?: string;
  }>;
}

/** An entry of the build (a path in the metafile) and a short label for merged file names. */
export interface MergeEntry {
  entry: string;
  label: string;
}

/**
 * Merges the chunks that the same set of entries reaches into one file per set; returns each
 * merged file's name with the number of chunks it replaced.
 */
export function mergeSharedChunks(
  root: string,
  meta: BuildMeta,
  entries: MergeEntry[],
  externals: string[],
): Map<string, number> {
  const outputs = new Map(
    Object.entries(meta.outputs).filter(([path]) => path.endsWith(".js")).map((
      [path, output],
    ) => [join(root, path), output]),
  );
  const staticImports = (file: string): string[] =>
    (outputs.get(file)?.imports ?? [])
      .filter((item) => item.kind === "import-statement" && !item.external)
      .map((item) => join(root, item.path))
      .filter((path) => outputs.has(path));
  const entryFiles = entries.map(({ entry }) => join(root, entry));
  // Which entries reach each chunk, in the order the runtime evaluates the chunks (depth-first,
  // post-order from the first entry that reaches them).
  const reachedBy = new Map<string, string[]>();
  entries.forEach(({ entry, label }) => {
    const entryFile = join(root, entry);
    if (!outputs.has(entryFile)) throw new Error(`Cannot merge: ${entry} is not an output`);
    const seen = new Set<string>([entryFile]);
    const visit = (file: string): void => {
      for (const next of staticImports(file)) {
        if (seen.has(next)) continue;
        seen.add(next);
        visit(next);
        if (entryFiles.includes(next)) continue;
        const labels = reachedBy.get(next) ?? [];
        labels.push(label);
        reachedBy.set(next, labels);
      }
    };
    visit(entryFile);
  });
  const groups = new Map<string, string[]>();
  for (const [file, labels] of reachedBy) {
    const key = labels.join("-");
    groups.set(key, [...(groups.get(key) ?? []), file]);
  }
  const merged = new Map<string, string>(); // chunk file -> merged file
  const counts = new Map<string, number>();
  for (const [key, group] of groups) {
    if (group.length < 2) continue;
    const chunkDir = dirname(group[0]!);
    const name = `_merged-${key}.js`;
    const target = join(chunkDir, name);
    const source = join(chunkDir, `_merge-${key}.entry.js`);
    const names = new Set<string>();
    writeFileSync(
      source,
      group.map((file) => {
        if (dirname(file) !== chunkDir) {
          throw new Error(`Cannot merge: ${file} is not in ${chunkDir}`);
        }
        const exported = outputs.get(file)!.exports;
        for (const exportName of exported) {
          if (names.has(exportName)) {
            throw new Error(`Cannot merge ${name}: two chunks export ${exportName}`);
          }
          names.add(exportName);
        }
        const specifier = `./${basename(file)}`;
        return exported.length
          ? `export { ${exported.join(", ")} } from "${specifier}";\n`
          : `import "${specifier}";\n`;
      }).join(""),
    );
    const inGroup = new Set(group);
    // The group's imports from outside must not lead back into it: the merged file would import
    // itself through another file.
    const pending = group.flatMap(staticImports).filter((file) => !inGroup.has(file));
    const outside = new Set(pending);
    for (let file = pending.pop(); file; file = pending.pop()) {
      for (const next of staticImports(file)) {
        if (inGroup.has(next)) {
          throw new Error(`Cannot merge ${name}: ${file} leads back into it`);
        }
        if (!outside.has(next)) outside.add(next), pending.push(next);
      }
    }
    execFileSync(join(root, "node_modules/.bin/esbuild"), [
      source,
      "--bundle",
      "--format=esm",
      "--platform=node",
      "--target=es2022",
      "--charset=ascii",
      ...externals,
      // Everything else this build emitted stays a file of its own.
      ...[...outputs.keys()].filter((file) => !inGroup.has(file)).map((file) =>
        `--external:${file}`
      ),
      `--outfile=${target}`,
      "--log-level=warning",
    ], { cwd: root, stdio: "inherit" });
    rmSync(source);
    for (const file of group) merged.set(file, target);
    counts.set(name, group.length);
  }
  for (const file of merged.keys()) rmSync(file);
  pointAtMerged([...outputs.keys(), ...new Set(merged.values())], merged);
  return counts;
}

/** Points every import (static or dynamic) of a merged chunk at its merged file. */
function pointAtMerged(files: Iterable<string>, merged: Map<string, string>): void {
  for (const file of files) {
    if (merged.has(file)) continue;
    const text = readFileSync(file, "utf8");
    const rewritten = text.replace(
      /(\bfrom\s*|\bimport\s*\(?\s*)"(\.\.?\/[^"]+\.js)"/g,
      (match, prefix: string, specifier: string) => {
        const target = merged.get(join(dirname(file), specifier));
        if (!target) return match;
        const path = relative(dirname(file), target);
        return `${prefix}"${path.startsWith(".") ? path : "./" + path}"`;
      },
    );
    if (rewritten !== text) writeFileSync(file, rewritten);
  }
}
