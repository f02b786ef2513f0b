/**
 * What `bub install` is asked for: an npm package (`name`, `name@range`, `npm:name@range`), a JSR
 * package (`jsr:@scope/name[@range]`, installed through JSR's npm registry as
 * `@jsr/scope__name`), or a local path (a package folder or a `.tgz`).
 *
 * @module
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { expandHome } from "../_internal/home.ts";
import { BubError } from "../kernel/errors.ts";

/**
 * One parsed install argument.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parsePluginSpec } from "./plugin_install_spec.ts";
 * const spec = parsePluginSpec("jsr:@luca/greet@^1", "/tmp");
 * assert.ok(spec.kind === "jsr" && spec.name === "@jsr/luca__greet" && spec.entry === "jsr:@luca/greet");
 * ```
 */
export interface PluginSpec {
  /** Where it comes from. */
  readonly kind: "npm" | "jsr" | "path";
  /** The argument as given. */
  readonly input: string;
  /** What npm installs: `name@range`, or the absolute path. */
  readonly installArg: string;
  /** The npm package name; null for a path until it is installed. */
  readonly name: string | null;
  /** The `plugins:` entry (`name`, `jsr:@scope/name`); null for a path until it is installed. */
  readonly entry: string | null;
}

const NPM_NAME = /^(@[a-z0-9][\w.-]*\/[\w.-]+|[a-z0-9][\w.-]*)(?:@(.+))?$/i;
const JSR_NAME = /^jsr:\/?@([a-z0-9][\w-]*)\/([a-z0-9][\w-]*)(?:@(.+))?$/i;

/** True when `input` names a local path rather than a registry package. */
function looksLikePath(input: string): boolean {
  return /^(\.{1,2}(\/|$)|\/|~(\/|$)|file:)/.test(input) || /\.(tgz|tar\.gz)$/.test(input);
}

/**
 * Parses one `bub install` argument; a relative path resolves against `cwd`.
 *
 * @throws {BubError} (`invalid_input`) when it is neither a package name, a `jsr:` specifier nor
 *   an existing path
 */
export function parsePluginSpec(input: string, cwd: string): PluginSpec {
  const text = input.trim();
  if (looksLikePath(text)) {
    const path = resolve(cwd, expandHome(text.replace(/^file:(\/\/)?/, "")));
    if (!existsSync(path)) {
      throw new BubError(
        "invalid_input",
        `Cannot install plugin "${input}": ${path} does not exist`,
      );
    }
    return { kind: "path", input, installArg: path, name: null, entry: null };
  }
  const jsr = JSR_NAME.exec(text);
  if (jsr) {
    const name = `@jsr/${jsr[1]}__${jsr[2]}`;
    return {
      kind: "jsr",
      input,
      installArg: jsr[3] ? `${name}@${jsr[3]}` : name,
      name,
      entry: `jsr:@${jsr[1]}/${jsr[2]}`,
    };
  }
  const npm = text.startsWith("jsr:") ? null : NPM_NAME.exec(text.replace(/^npm:\/?/, ""));
  if (!npm) {
    throw new BubError(
      "invalid_input",
      `Cannot install plugin "${input}": expected an npm package (name, name@range, ` +
        `npm:name@range), jsr:@scope/name[@range] or a path`,
    );
  }
  const name = npm[1]!;
  return {
    kind: "npm",
    input,
    installArg: npm[2] ? `${name}@${npm[2]}` : name,
    name,
    entry: name,
  };
}
