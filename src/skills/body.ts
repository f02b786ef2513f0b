/**
 * Rendering a skill's body: frontmatter removed, `${config.*}` values and `$SKILL_DIR` filled in.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import process from "node:process";
import { stringify } from "../_vendor/yaml.js";
import { stripFrontmatter } from "./frontmatter.ts";
import type { Skill } from "./skill.ts";
import { runtimeKey } from "../_internal/runtime.ts";

const CONFIG_TEMPLATE = /\$\{\s*config\.([A-Za-z0-9_.-]+)\s*\}/g;
const PLACEHOLDER = /\$(?:(\$)|([_A-Za-z][_A-Za-z0-9]*)|\{([_A-Za-z][_A-Za-z0-9]*)\})/g;

/**
 * Looks a dotted configuration path up (e.g. `telegram.token`); returns `undefined` when unknown.
 * Must not throw.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ConfigLookup, renderSkillText } from "@bub/core/skills";
 * const config: ConfigLookup = (path) => ({ "telegram.token": "t" } as Record<string, unknown>)[path];
 * assert.equal(renderSkillText("token: ${config.telegram.token}", "/skills/tg", { config }), "token: t");
 * ```
 */
export type ConfigLookup = (path: string) => unknown;

/**
 * Options of {@link renderSkillBody} and {@link renderSkillText}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type RenderSkillOptions, renderSkillText } from "@bub/core/skills";
 * const options: RenderSkillOptions = { runtimeCommand: "deno run -A" };
 * assert.equal(renderSkillText("$RUNTIME $SKILL_DIR/x.ts", "/s", options), "deno run -A /s/x.ts");
 * ```
 */
export interface RenderSkillOptions {
  /** Resolves `${config.<path>}`. @default every path is unknown (renders as "") */
  config?: ConfigLookup;
  /** What `$RUNTIME` becomes. @default {@link currentRuntimeCommand}() */
  runtimeCommand?: string;
}

/** Formats a configuration value for a skill body: strings verbatim, booleans and numbers as text. */
function formatConfigValue(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "boolean" || typeof value === "number" || typeof value === "bigint") {
    return String(value);
  }
  return stringify(value).trim();
}

function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The shell command that runs a TypeScript file with the runtime executing Bub: `deno run -A`,
 * `bun`, or `node` (with `--experimental-strip-types` before Node 23.6). Skills write
 * `$RUNTIME $SKILL_DIR/scripts/x.ts`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { currentRuntimeCommand } from "@bub/core/skills";
 * assert.match(currentRuntimeCommand(), /deno/); // "<path to deno> run -A" under Deno
 * ```
 */
export function currentRuntimeCommand(): string {
  const exec = shellQuote(process.execPath);
  const runtime = runtimeKey();
  if (runtime === "deno") return `${exec} run -A`;
  if (runtime === "bun") return exec;
  const [major = 0, minor = 0] = (process.versions.node ?? "0.0").split(".").map(Number);
  return major > 23 || (major === 23 && minor >= 6) ? exec : `${exec} --experimental-strip-types`;
}

/**
 * Renders skill text (already without frontmatter): `${config.<path>}` (spaces allowed inside
 * the braces) becomes the looked-up value (strings verbatim, booleans `true`/`false`, numbers as
 * text, other values as trimmed YAML, unknown as ""); then `$SKILL_DIR`/`${SKILL_DIR}` becomes
 * `skillDir`, `$RUNTIME`/`${RUNTIME}` the runtime command, `$$` a single `$`, and any other
 * `$name` is left as it is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { renderSkillText } from "./body.ts";
 * const text = renderSkillText("Run $SKILL_DIR/x with ${config.telegram.token} for $$5 $HOME", "/s", {
 *   config: (path) => (path === "telegram.token" ? "123:abc" : undefined),
 * });
 * assert.ok(text === "Run /s/x with 123:abc for $5 $HOME");
 * ```
 */
export function renderSkillText(
  text: string,
  skillDir: string,
  options: RenderSkillOptions = {},
): string {
  const lookup = options.config;
  const withConfig = text.replace(CONFIG_TEMPLATE, (_match, path: string) => {
    if (!lookup) return "";
    try {
      return formatConfigValue(lookup(path));
    } catch {
      return "";
    }
  });
  let runtime: string | undefined = options.runtimeCommand;
  return withConfig.replace(
    PLACEHOLDER,
    (match, dollar: string | undefined, bare: string | undefined, braced: string | undefined) => {
      if (dollar) return "$";
      const name = bare ?? braced;
      if (name === "SKILL_DIR") return skillDir;
      if (name === "RUNTIME") return runtime ??= currentRuntimeCommand();
      return match;
    },
  );
}

/**
 * A skill's rendered body: `SKILL.md` read and trimmed (unreadable → ""), the first frontmatter
 * block removed, then {@link renderSkillText} with the skill's directory.
 *
 * @example
 * ```ts
 * import { discoverSkills, renderSkillBody } from "@bub/core/skills";
 * const [skill] = discoverSkills({ workspace: "." });
 * if (skill) console.log(renderSkillBody(skill, { config: () => undefined }));
 * ```
 */
export function renderSkillBody(skill: Skill, options: RenderSkillOptions = {}): string {
  let text: string;
  try {
    text = readFileSync(skill.location, "utf8");
  } catch {
    return "";
  }
  return renderSkillText(stripFrontmatter(text), dirname(skill.location), options);
}
