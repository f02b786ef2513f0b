/**
 * The `<available_skills>` block of the system prompt and `$name` expansion.
 *
 * @module
 */
import { renderSkillBody, type RenderSkillOptions } from "./body.ts";
import type { Skill } from "./skill.ts";

const SKILL_REFERENCE = /\$([A-Za-z0-9_.-]+)/g;

/**
 * Every `$<name>` reference in `text` (names as written, matched by `\$([A-Za-z0-9_.-]+)`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { skillReferences } from "./prompt.ts";
 * assert.ok([...skillReferences("channel=$telegram use $gh")].join() === "telegram,gh");
 * ```
 */
export function skillReferences(text: string): Set<string> {
  const out = new Set<string>();
  for (const match of text.matchAll(SKILL_REFERENCE)) out.add(match[1]!);
  return out;
}

/**
 * The skills visible to a run: all of them when `allowed` is null/undefined, otherwise those whose
 * casefolded name is in `allowed` (compared casefolded).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { filterAllowedSkills } from "./prompt.ts";
 * const skills = [{ name: "gh" }, { name: "telegram" }] as const;
 * assert.ok(filterAllowedSkills(skills, ["GH"]).length === 1);
 * ```
 */
export function filterAllowedSkills<T extends Pick<Skill, "name">>(
  skills: readonly T[],
  allowed: Iterable<string> | null | undefined,
): T[] {
  if (allowed === null || allowed === undefined) return [...skills];
  const names = new Set([...allowed].map((name) => name.toLowerCase()));
  return skills.filter((skill) => names.has(skill.name.toLowerCase()));
}

/**
 * Options of {@link renderSkillsPrompt}.
 *
 * @example
 * ```ts
 * import { discoverSkills, renderSkillsPrompt, type SkillsPromptOptions } from "@bub/core/skills";
 * const skills = discoverSkills({ workspace: "." });
 * const options: SkillsPromptOptions = { expand: skills.slice(0, 1).map((skill) => skill.name) };
 * console.log(renderSkillsPrompt(skills, options));
 * ```
 */
export interface SkillsPromptOptions extends RenderSkillOptions {
  /** Names whose location and body are inlined (compared case-sensitively). @default none */
  expand?: Iterable<string>;
}

/**
 * Renders the `<available_skills>` block: one `- <name>: <description>` line per skill; an
 * expanded skill adds `  Location: <path>` and its rendered body (when non-empty) on the next
 * lines. No skills → "".
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { renderSkillsPrompt } from "./prompt.ts";
 * const block = renderSkillsPrompt([
 *   { name: "gh", description: "GitHub CLI", location: "/nonexistent/SKILL.md", source: "builtin", metadata: {} },
 * ]);
 * assert.ok(block === "<available_skills>\n- gh: GitHub CLI\n</available_skills>");
 * ```
 */
export function renderSkillsPrompt(
  skills: readonly Skill[],
  options: SkillsPromptOptions = {},
): string {
  if (skills.length === 0) return "";
  const expand = new Set(options.expand ?? []);
  const lines = ["<available_skills>"];
  for (const skill of skills) {
    let line = `- ${skill.name}: ${skill.description}`;
    if (expand.has(skill.name)) {
      line += `\n  Location: ${skill.location}`;
      const body = renderSkillBody(skill, options);
      if (body) line += `\n${body}`;
    }
    lines.push(line);
  }
  lines.push("</available_skills>");
  return lines.join("\n");
}

/**
 * Options of {@link skillsPromptFor}.
 *
 * @example
 * ```ts
 * import { discoverSkills, skillsPromptFor, type SkillsPromptForOptions } from "@bub/core/skills";
 * const options: SkillsPromptForOptions = { allowedSkills: ["telegram"] };
 * console.log(skillsPromptFor(discoverSkills({ workspace: "." }), "use $telegram", options));
 * ```
 */
export interface SkillsPromptForOptions extends RenderSkillOptions {
  /** Casefolded names allowed in this run, or null for all. */
  allowedSkills?: Iterable<string> | null;
}

/**
 * The skills block for one step: filters `skills` by the allowed set, then expands every skill
 * referenced as `$<name>` in `promptText` (§7.4).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { skillsPromptFor } from "./prompt.ts";
 * assert.ok(skillsPromptFor([], "hi $gh") === "");
 * ```
 */
export function skillsPromptFor(
  skills: readonly Skill[],
  promptText: string,
  options: SkillsPromptForOptions = {},
): string {
  const visible = filterAllowedSkills(skills, options.allowedSkills);
  const names = new Set(visible.map((skill) => skill.name.toLowerCase()));
  const expand = [...skillReferences(promptText)].filter((name) => names.has(name));
  return renderSkillsPrompt(visible, { ...options, expand });
}
