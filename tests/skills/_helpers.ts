import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A temp directory removed by the returned cleanup. */
export function tempDir(prefix = "bub-skills-"): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** Writes `<root>/<directory>/SKILL.md` with the given text; returns the skill directory. */
export function writeSkillFile(root: string, directory: string, text: string): string {
  const dir = join(root, directory);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "SKILL.md"), text, "utf8");
  return dir;
}

/** Writes a valid skill named `name`. */
export function writeSkill(
  root: string,
  name: string,
  description: string,
  body = "Body.",
): string {
  return writeSkillFile(
    root,
    name,
    `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`,
  );
}
