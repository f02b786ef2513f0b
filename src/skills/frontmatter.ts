/**
 * `SKILL.md` frontmatter: reading the leading YAML block and removing it from the body.
 *
 * @module
 */
import { isRecord } from "../_internal/object.ts";
import { parse } from "../_vendor/yaml.js";

const FENCE = "---";
const LEADING_BLOCK = /^---\s*\n[\s\S]*?\n---\s*\n/;

/**
 * Parses the frontmatter of a `SKILL.md` text. The trimmed text must start with a line that trims
 * to `---`; the block ends at the next line that trims to `---`. Top-level keys are lowercased.
 *
 * Returns `null` when there is no such block, when the YAML is invalid, or when it is not a
 * mapping.
 *
 * @example Read a skill's frontmatter
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseFrontmatter } from "./frontmatter.ts";
 * const meta = parseFrontmatter("---\nName: demo\ndescription: A demo\n---\nBody");
 * assert.ok(meta?.name === "demo");
 * ```
 */
export function parseFrontmatter(text: string): Record<string, unknown> | null {
  const lines = text.trim().split(/\r?\n/);
  if (lines.length === 0 || lines[0]!.trim() !== FENCE) return null;
  const end = lines.findIndex((line, index) => index > 0 && line.trim() === FENCE);
  if (end < 0) return null;
  let parsed: unknown;
  try {
    parsed = parse(lines.slice(1, end).join("\n"));
  } catch {
    return null;
  }
  if (!isRecord(parsed)) return null;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed)) out[key.toLowerCase()] = value;
  return out;
}

/**
 * Removes the first frontmatter block from `text` and trims the rest. The text is trimmed first,
 * and the block is only removed when a newline follows its closing `---`, so a file made only of
 * frontmatter is returned unchanged (trimmed).
 *
 * @example Strip the frontmatter
 * ```ts
 * import assert from "node:assert/strict";
 * import { stripFrontmatter } from "./frontmatter.ts";
 * assert.ok(stripFrontmatter("---\nname: x\n---\n\nHello\n") === "Hello");
 * ```
 */
export function stripFrontmatter(text: string): string {
  return text.trim().replace(LEADING_BLOCK, "").trim();
}
