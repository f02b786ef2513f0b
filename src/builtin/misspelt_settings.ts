/**
 * Settings that look misspelt: a top-level key of `config.yml` that no builtin setting, config
 * section or plugin section has, but that is close to one (`modle` → `model`), is reported once
 * with the key it probably meant, instead of being silently ignored. Keys far from every known
 * one are left alone: plugins may read keys of their own.
 *
 * @module
 */
import { hasConfigSection } from "../kernel/configure.ts";
import { closeMatches } from "./_difflib.ts";
import { SETTINGS_SPECS } from "./_settings_specs.ts";

/** The top-level keys Bub itself reads. */
function knownKeys(): Set<string> {
  const keys = new Set(["mcp_servers", "plugins"]);
  for (const spec of SETTINGS_SPECS) {
    if (spec.section) keys.add(spec.section);
    else for (const field of spec.fields) keys.add(field.key);
  }
  return keys;
}

/** A key that is probably a typo, and the key it probably meant. */
export interface MisspeltSetting {
  /** The key as written. */
  key: string;
  /** The closest known key. */
  meant: string;
}

/**
 * The top-level keys of `config` that are unknown but close to a known one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { misspeltSettings } from "./misspelt_settings.ts";
 * assert.deepEqual(misspeltSettings({ modle: "openai:gpt-4o", my_plugin: {} }), [
 *   { key: "modle", meant: "model" },
 * ]);
 * ```
 */
export function misspeltSettings(config: Readonly<Record<string, unknown>>): MisspeltSetting[] {
  const known = knownKeys();
  const found: MisspeltSetting[] = [];
  for (const key of Object.keys(config)) {
    if (known.has(key) || hasConfigSection(key)) continue;
    const [meant] = closeMatches(key.toLowerCase(), known, 1, 0.8);
    if (meant !== undefined) found.push({ key, meant });
  }
  return found;
}
