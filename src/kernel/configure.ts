/**
 * Configuration pieces owned by the kernel: deep merge, section validation, the YAML config file
 * and `.env` loading.
 *
 * @module
 */
import { isPlainObject } from "../_internal/object.ts";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parse, stringify } from "../_vendor/yaml.js";
import process from "node:process";
import { BubError } from "./errors.ts";

function deepCopy(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = isPlainObject(item) ? deepCopy(item) : item;
  }
  return out;
}

/**
 * Deep-merges `updates` into `base` in place, left to right, and returns `base`: nested mappings
 * merge, anything else replaces (incoming mappings are deep-copied; lists are shared).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeConfig } from "./configure.ts";
 * const merged = mergeConfig({ model: "a", telegram: { token: "t" } }, { telegram: { allow_users: "1,2" } });
 * assert.ok(JSON.stringify(merged) === '{"model":"a","telegram":{"token":"t","allow_users":"1,2"}}');
 * ```
 */
export function mergeConfig(
  base: Record<string, unknown>,
  ...updates: Record<string, unknown>[]
): Record<string, unknown> {
  for (const update of updates) {
    for (const [key, incoming] of Object.entries(update)) {
      const existing = base[key];
      if (isPlainObject(existing) && isPlainObject(incoming)) mergeConfig(existing, incoming);
      else base[key] = isPlainObject(incoming) ? deepCopy(incoming) : incoming;
    }
  }
  return base;
}

/**
 * Validates one settings section's data; throws a descriptive error when it is invalid.
 *
 * @example
 * ```ts
 * import { registerConfigSection, type SectionValidator } from "@bub/core/kernel";
 * const validateWeather: SectionValidator = (data) => {
 *   if (data.units !== undefined && !["metric", "imperial"].includes(String(data.units))) {
 *     throw new TypeError(`weather.units must be metric or imperial, got ${data.units}`);
 *   }
 * };
 * registerConfigSection("weather", validateWeather);
 * ```
 */
export type SectionValidator = (data: Record<string, unknown>) => void;

const sections = new Map<string, SectionValidator>();

/**
 * Registers a validator for a config section (`""` is the YAML root). Later registrations of the
 * same section replace earlier ones.
 *
 * @example
 * ```ts
 * import { registerConfigSection } from "@bub/core/kernel";
 * registerConfigSection("weather", (data) => {
 *   if (typeof data.city !== "string") throw new TypeError("weather.city must be a string");
 * });
 * ```
 */
export function registerConfigSection(section: string, validate: SectionValidator): void {
  sections.set(section, validate);
}

/** Whether a validator is registered for `section` (see {@link registerConfigSection}). */
export function hasConfigSection(section: string): boolean {
  return sections.has(section);
}

/**
 * Validates `data` with every registered section validator (using only the given values, never
 * the environment) and returns it unchanged.
 *
 * @throws {BubError} (`config`) naming the section and the problem
 */
export function validateConfig(data: Record<string, unknown>): Record<string, unknown> {
  if (!isPlainObject(data)) {
    throw new BubError("config", `Invalid config: expected a mapping, got ${JSON.stringify(data)}`);
  }
  for (const [section, validate] of sections) {
    const value = section === "" ? data : data[section] ?? {};
    if (!isPlainObject(value)) {
      throw new BubError(
        "config",
        `Invalid config: section "${section}" must be a mapping, got ${JSON.stringify(value)}`,
      );
    }
    try {
      validate(value);
    } catch (error) {
      if (BubError.isInstance(error)) throw error;
      throw new BubError(
        "config",
        `Invalid config${section ? ` in section "${section}"` : ""}: ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
    }
  }
  return data;
}

/**
 * Reads a YAML config file: a missing or empty file is `{}`.
 *
 * @throws {BubError} (`config`) when the file is not valid YAML or not a mapping
 */
export function loadConfigFile(path: string): Record<string, unknown> {
  if (!existsSync(path)) return {};
  const text = readFileSync(path, "utf8");
  let data: unknown;
  try {
    data = parse(text);
  } catch (error) {
    throw new BubError(
      "config",
      `Cannot read config file ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (data === null || data === undefined) return {};
  if (!isPlainObject(data)) {
    throw new BubError(
      "config",
      `Cannot read config file ${path}: expected a mapping at the top level`,
    );
  }
  return data;
}

/** Validates `data`, creates parent directories and writes it as YAML, keeping key order. */
export function saveConfigFile(path: string, data: Record<string, unknown>): void {
  validateConfig(data);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, stringify(data), { encoding: "utf8", mode: 0o600 });
  chmodSync(path, 0o600); // an existing file keeps its mode through writeFileSync
}

/**
 * Parses the text of a `.env` file into a map, as Node's `util.parseEnv` does: `export` prefixes,
 * `#` comment lines and trailing comments, values in `"`, `'` or `` ` `` quotes (which may span
 * lines and keep a `#`; `\n` in double quotes becomes a newline).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseDotenv } from "./configure.ts";
 * assert.ok(parseDotenv('KEY="a#b" # c').KEY === "a#b");
 * assert.ok(parseDotenv("export A=1 # one\nB='x y'").A === "1");
 * ```
 */
export function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  let content = text.replaceAll("\r", "").trim();
  const skipLine = (): boolean => {
    const newline = content.indexOf("\n");
    if (newline < 0) return false;
    content = content.slice(newline + 1).trim();
    return true;
  };
  while (content !== "") {
    if (content[0] === "\n" || content[0] === "#") {
      if (content[0] === "#" && !skipLine()) break;
      if (content[0] === "\n") content = content.slice(1);
      continue;
    }
    const at = content.search(/[=\n]/);
    if (at < 0 || content[at] === "\n") {
      if (!skipLine()) break;
      continue;
    }
    let key = content.slice(0, at).trim();
    content = content.slice(at + 1);
    if (key === "") {
      if (!skipLine()) break;
      continue;
    }
    if (key.startsWith("export ")) key = key.slice(7).trim();
    content = content.replace(/^[ \t]+/, "");
    if (content === "") {
      out[key] = "";
      break;
    }
    const quote = content[0]!;
    const closing = `"'\``.includes(quote) ? content.indexOf(quote, 1) : -1;
    if (closing > 0) {
      const value = content.slice(1, closing);
      out[key] = quote === '"' ? value.replaceAll("\\n", "\n") : value;
      const newline = content.indexOf("\n", closing + 1);
      content = newline < 0 ? "" : content.slice(newline + 1);
    } else {
      const newline = content.indexOf("\n");
      let value = newline < 0 ? content : content.slice(0, newline);
      content = newline < 0 ? "" : content.slice(newline + 1);
      if (!`"'\``.includes(quote)) {
        const hash = value.indexOf("#");
        if (hash >= 0) value = value.slice(0, hash);
        value = value.trim();
      }
      out[key] = value;
    }
    content = content.trim();
  }
  return out;
}

/** Finds the nearest `.env` file from `start` upward, or null. */
export function findDotenv(start: string): string | null {
  let dir = resolve(start);
  while (true) {
    const candidate = join(dir, ".env");
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/**
 * Loads `<cwd>/.env` (only that folder, never a parent's) into `env` without overriding existing
 * variables; returns the file loaded, or null. The `bub` CLI calls it at start; the framework
 * never does.
 */
export function loadDotenv(
  cwd: string = process.cwd(),
  env: Record<string, string | undefined> = process.env,
): string | null {
  const file = join(resolve(cwd), ".env");
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return null;
  }
  for (const [key, value] of Object.entries(parseDotenv(text))) {
    if (env[key] === undefined) env[key] = value;
  }
  return file;
}
