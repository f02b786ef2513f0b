/**
 * Editing the `plugins:` list of config.yml in place with the `yaml` package's Document API:
 * comments, key order and the rest of the file stay as they were. `yaml` is imported when an edit
 * is made (Bub's start-up reads config.yml with the vendored parser only).
 *
 * @module
 */
import { existsSync, readFileSync } from "node:fs";
import { BubError } from "../kernel/errors.ts";

type YamlModule = typeof import("yaml");

async function parse(text: string, path: string) {
  const yaml: YamlModule = await import("yaml");
  const doc = yaml.parseDocument(text);
  if (doc.errors.length > 0) {
    throw new BubError("config", `Cannot edit ${path}: ${doc.errors[0]!.message.split("\n")[0]}`);
  }
  if (doc.contents !== null && !yaml.isMap(doc.contents)) {
    throw new BubError("config", `Cannot edit ${path}: the file is not a mapping`);
  }
  const list = doc.get("plugins", true);
  if (list !== undefined && list !== null && !yaml.isSeq(list)) {
    throw new BubError("config", `Cannot edit ${path}: "plugins" is not a list`);
  }
  return { yaml, doc, list: list ?? null };
}

/** The config file's text, or "" when it does not exist. */
export function readConfigText(path: string): string {
  return existsSync(path) ? readFileSync(path, "utf8") : "";
}

/**
 * `text` with `entries` appended to its `plugins:` list (created when missing); entries already
 * listed are not added twice. Returns `text` itself when nothing changes.
 *
 * @throws {BubError} (`config`) when the text is not YAML, not a mapping, or `plugins` is not a list
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { addPluginEntries } from "./plugin_install_config.ts";
 * const text = await addPluginEntries("# mine\nmodel: openai:gpt-4o\n", ["greet"], "config.yml");
 * assert.equal(text, "# mine\nmodel: openai:gpt-4o\nplugins:\n  - greet\n");
 * ```
 */
export async function addPluginEntries(
  text: string,
  entries: readonly string[],
  path: string,
): Promise<string> {
  const { yaml, doc, list } = await parse(text, path);
  const present = new Set(list?.items.map((item) => yaml.isScalar(item) ? item.value : item));
  const missing = entries.filter((entry) => !present.has(entry));
  if (missing.length === 0) return text;
  if (list === null) {
    doc.set("plugins", doc.createNode(missing));
  } else {
    for (const entry of missing) list.add(doc.createNode(entry));
  }
  return doc.toString();
}

/**
 * `text` without the `plugins:` entries `remove` picks (the key goes when its list ends up empty),
 * and the entries removed.
 *
 * @throws {BubError} (`config`) when the text is not YAML, not a mapping, or `plugins` is not a list
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { removePluginEntries } from "./plugin_install_config.ts";
 * const result = await removePluginEntries("plugins: [a, b] # two\n", (e) => e === "a", "config.yml");
 * assert.deepEqual(result.removed, ["a"]);
 * assert.equal(result.text, "plugins: [ b ] # two\n");
 * ```
 */
export async function removePluginEntries(
  text: string,
  remove: (entry: string) => boolean,
  path: string,
): Promise<{ text: string; removed: string[] }> {
  const { yaml, doc, list } = await parse(text, path);
  if (list === null) return { text, removed: [] };
  const removed: string[] = [];
  for (let index = list.items.length - 1; index >= 0; index--) {
    const item = list.items[index];
    const value = yaml.isScalar(item) ? item.value : item;
    if (typeof value === "string" && remove(value)) {
      removed.unshift(value);
      list.delete(index);
    }
  }
  if (removed.length === 0) return { text, removed };
  if (list.items.length === 0) doc.delete("plugins");
  return { text: doc.toString(), removed };
}
