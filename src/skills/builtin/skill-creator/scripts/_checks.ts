/**
 * The checks of the `skill-creator` quick validator. They are stricter than Bub's loader: only the
 * keys `name`, `description`, `license`, `allowed-tools` and `metadata` are accepted, and the
 * description may not contain angle brackets.
 *
 * @module
 */
import { readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { parse } from "yaml";

/** Frontmatter keys the validator accepts. */
export const ALLOWED_KEYS: readonly string[] = [
  "name",
  "description",
  "license",
  "allowed-tools",
  "metadata",
];

/** Checks a skill name; returns the problems found (empty when valid). */
export function nameProblems(name: unknown, directoryName?: string): string[] {
  if (typeof name !== "string") {
    return [`name must be a string, got ${JSON.stringify(name ?? null)}`];
  }
  const value = name.trim();
  const problems: string[] = [];
  if (value === "") return ["name must not be empty"];
  if (!/^[a-z0-9-]+$/.test(value)) {
    problems.push(
      `name "${value}" must be hyphen-case: lowercase letters, digits and hyphens only`,
    );
  }
  if (value.startsWith("-") || value.endsWith("-")) {
    problems.push(`name "${value}" must not start or end with a hyphen`);
  }
  if (value.includes("--")) problems.push(`name "${value}" must not contain consecutive hyphens`);
  if (value.length > 64) problems.push(`name is ${value.length} characters long; the limit is 64`);
  if (directoryName !== undefined && value !== directoryName) {
    problems.push(`name "${value}" must equal the directory name "${directoryName}"`);
  }
  return problems;
}

/**
 * Validates the skill in `directory`; returns the problems found (empty when the skill is valid).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { skillProblems } from "./_checks.ts";
 * assert.ok(skillProblems("/nonexistent")[0] === "SKILL.md not found in /nonexistent");
 * ```
 */
export function skillProblems(directory: string): string[] {
  const dir = resolve(directory);
  const file = join(dir, "SKILL.md");
  let text: string;
  try {
    if (!statSync(file).isFile()) return [`SKILL.md in ${dir} is not a file`];
    text = readFileSync(file, "utf8");
  } catch {
    return [`SKILL.md not found in ${dir}`];
  }
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text.trimStart());
  if (!match) {
    return ["No YAML frontmatter: SKILL.md must start with a block between two --- lines"];
  }
  let data: unknown;
  try {
    data = parse(match[1]!);
  } catch (error) {
    return [
      `Invalid YAML in frontmatter: ${
        error instanceof Error ? error.message.split("\n")[0] : error
      }`,
    ];
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return ["Frontmatter must be a YAML mapping"];
  }
  const frontmatter = data as Record<string, unknown>;
  const problems: string[] = [];
  const unexpected = Object.keys(frontmatter).filter((key) => !ALLOWED_KEYS.includes(key));
  if (unexpected.length > 0) {
    problems.push(
      `Unexpected frontmatter key(s): ${unexpected.sort().join(", ")} (allowed: ${
        ALLOWED_KEYS.join(", ")
      })`,
    );
  }
  if (!("name" in frontmatter)) problems.push("Missing 'name' in frontmatter");
  else problems.push(...nameProblems(frontmatter.name, basename(dir)));
  const description = frontmatter.description;
  if (!("description" in frontmatter)) problems.push("Missing 'description' in frontmatter");
  else if (typeof description !== "string") {
    problems.push(`description must be a string, got ${JSON.stringify(description)}`);
  } else {
    if (description.trim() === "") problems.push("description must not be empty");
    if (/[<>]/.test(description)) {
      problems.push("description must not contain angle brackets (< or >)");
    }
    if (description.length > 1024) {
      problems.push(`description is ${description.length} characters long; the limit is 1024`);
    }
  }
  const metadata = frontmatter.metadata;
  if (metadata !== undefined && metadata !== null) {
    if (typeof metadata !== "object" || Array.isArray(metadata)) {
      problems.push("metadata must be a mapping of strings to strings");
    } else {
      for (const [key, value] of Object.entries(metadata)) {
        if (typeof value !== "string") {
          problems.push(`metadata.${key} must be a string, got ${JSON.stringify(value)}`);
        }
      }
    }
  }
  return problems;
}
