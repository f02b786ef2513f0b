/**
 * The discovered-skill record and the rules a `SKILL.md` must follow to be loaded.
 *
 * @module
 */
import { readFileSync, realpathSync } from "node:fs";
import { basename, join } from "node:path";
import { StampCache, stampOf, statQuiet } from "../_internal/file_stamp.ts";
import { parseFrontmatter } from "./frontmatter.ts";

/**
 * The file every skill directory holds.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SKILL_FILE_NAME } from "@bub/core/skills";
 * assert.equal(SKILL_FILE_NAME, "SKILL.md");
 * ```
 */
export const SKILL_FILE_NAME = "SKILL.md";
/**
 * Longest accepted skill name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MAX_SKILL_NAME_LENGTH } from "@bub/core/skills";
 * assert.equal(MAX_SKILL_NAME_LENGTH, 64);
 * ```
 */
export const MAX_SKILL_NAME_LENGTH = 64;
/**
 * Longest accepted skill description.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MAX_SKILL_DESCRIPTION_LENGTH } from "@bub/core/skills";
 * assert.equal(MAX_SKILL_DESCRIPTION_LENGTH, 1024);
 * ```
 */
export const MAX_SKILL_DESCRIPTION_LENGTH = 1024;
/**
 * Hyphen-case: lowercase letters and digits in groups joined by single hyphens.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SKILL_NAME_PATTERN } from "@bub/core/skills";
 * assert.ok(SKILL_NAME_PATTERN.test("pdf-tools"));
 * assert.ok(!SKILL_NAME_PATTERN.test("PDF_tools"));
 * ```
 */
export const SKILL_NAME_PATTERN: RegExp = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * Where a skill was found: the workspace, the user's home, or the package itself.
 *
 * @example
 * ```ts
 * import type { Skill, SkillSource } from "@bub/core/skills";
 * const fromProject = (skill: Skill): boolean => skill.source === ("project" satisfies SkillSource);
 * ```
 */
export type SkillSource = "project" | "global" | "builtin";

/**
 * A discovered skill.
 *
 * @example
 * ```ts
 * import { discoverSkills, type Skill } from "@bub/core/skills";
 * const skills: Skill[] = discoverSkills({ workspace: "." });
 * for (const skill of skills) console.log(`${skill.name} (${skill.source}): ${skill.description}`);
 * ```
 */
export interface Skill {
  /** The skill name (equal to its directory name). */
  readonly name: string;
  /** The trimmed description. */
  readonly description: string;
  /** Absolute, real path of the skill's `SKILL.md`. */
  readonly location: string;
  /** The root the skill came from. */
  readonly source: SkillSource;
  /** Every frontmatter key (casefolded) with its value, including `name` and `description`. */
  readonly metadata: Readonly<Record<string, unknown>>;
}

/**
 * Checks parsed frontmatter against the loader's rules and returns why it is invalid, or `null`
 * when it is valid: `name` a trimmed non-empty string of at most 64 characters, equal to
 * `directoryName` and hyphen-case; `description` a trimmed non-empty string of at most 1024
 * characters; `metadata` absent/null or a mapping of strings to strings. Other keys are allowed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { skillFrontmatterProblem } from "./skill.ts";
 * assert.ok(skillFrontmatterProblem({ name: "demo", description: "d" }, "demo") === null);
 * assert.ok(skillFrontmatterProblem({ name: "Demo", description: "d" }, "Demo") !== null);
 * ```
 */
export function skillFrontmatterProblem(
  frontmatter: Record<string, unknown>,
  directoryName: string,
): string | null {
  const name = frontmatter.name;
  if (typeof name !== "string") return `name must be a string, got ${JSON.stringify(name)}`;
  const trimmed = name.trim();
  if (trimmed === "") return "name must not be empty";
  if (trimmed.length > MAX_SKILL_NAME_LENGTH) {
    return `name must be at most ${MAX_SKILL_NAME_LENGTH} characters, got ${trimmed.length}`;
  }
  if (trimmed !== directoryName) {
    return `name "${trimmed}" must equal the directory name "${directoryName}"`;
  }
  if (!SKILL_NAME_PATTERN.test(trimmed)) return `name "${trimmed}" must be hyphen-case`;
  const description = frontmatter.description;
  if (typeof description !== "string") {
    return `description must be a string, got ${JSON.stringify(description)}`;
  }
  const text = description.trim();
  if (text === "") return "description must not be empty";
  if (text.length > MAX_SKILL_DESCRIPTION_LENGTH) {
    return `description must be at most ${MAX_SKILL_DESCRIPTION_LENGTH} characters, got ${text.length}`;
  }
  const metadata = frontmatter.metadata;
  if (metadata !== null && metadata !== undefined) {
    if (typeof metadata !== "object" || Array.isArray(metadata)) {
      return `metadata must be a mapping, got ${JSON.stringify(metadata)}`;
    }
    for (const [key, value] of Object.entries(metadata)) {
      if (typeof value !== "string") {
        return `metadata.${key} must be a string, got ${JSON.stringify(value)}`;
      }
    }
  }
  return null;
}

/** Parsed skills by source and file, revalidated by the file's stat (skills are read every step). */
const SKILLS = new StampCache<Skill | null>(512);

function copySkill(skill: Skill | null): Skill | null {
  return skill === null ? null : { ...skill, metadata: { ...skill.metadata } };
}

/**
 * Reads the skill in `directory`; returns `null` when it has no readable `SKILL.md` or the
 * frontmatter is missing or invalid (see {@link skillFrontmatterProblem}).
 *
 * @example
 * ```ts ignore
 * import { readSkill } from "./skill.ts";
 * const skill = readSkill("/work/.agents/skills/demo", "project");
 * ```
 */
export function readSkill(directory: string, source: SkillSource): Skill | null {
  const file = join(directory, SKILL_FILE_NAME);
  const stats = statQuiet(file);
  if (stats === null || !stats.isFile()) return null;
  const key = `${source}\0${file}`;
  const stamp = stampOf(stats);
  const cached = SKILLS.get(key, stamp);
  if (cached !== undefined) return copySkill(cached);
  const skill = parseSkill(directory, file, source);
  if (skill === undefined) return null; // unreadable now: not cached, tried again next time
  SKILLS.set(key, stamp, skill);
  return copySkill(skill);
}

/** The skill in `file`, null when invalid, undefined when the file could not be read. */
function parseSkill(
  directory: string,
  file: string,
  source: SkillSource,
): Skill | null | undefined {
  let text: string;
  let location: string;
  try {
    text = readFileSync(file, "utf8");
    location = realpathSync(file);
  } catch {
    return undefined;
  }
  const frontmatter = parseFrontmatter(text);
  if (frontmatter === null) return null;
  if (skillFrontmatterProblem(frontmatter, basename(directory)) !== null) return null;
  const metadata: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(frontmatter)) metadata[key.toLowerCase()] = value;
  return {
    name: String(frontmatter.name).trim(),
    description: String(frontmatter.description).trim(),
    location,
    source,
    metadata,
  };
}
