/**
 * Quick validator for a skill folder: `<runtime> validate_skill.ts <skill-dir>`. Prints
 * `Skill is valid!` and exits 0, or lists every problem and exits 1.
 *
 * @module
 */
import process from "node:process";
import { skillProblems } from "./_checks.ts";

const [directory] = process.argv.slice(2);
if (!directory) {
  process.stderr.write("Usage: validate_skill.ts <skill-dir>\n");
  process.exitCode = 2;
} else {
  const problems = skillProblems(directory);
  if (problems.length === 0) {
    process.stdout.write("Skill is valid!\n");
  } else {
    process.stdout.write(
      `Skill is invalid:\n${problems.map((problem) => `- ${problem}`).join("\n")}\n`,
    );
    process.exitCode = 1;
  }
}
