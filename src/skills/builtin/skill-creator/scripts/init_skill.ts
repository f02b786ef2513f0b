/**
 * Creates a new skill folder from a template:
 * `<runtime> init_skill.ts <skill-name> --path <parent-dir> [--resources scripts,references,assets]`.
 * Refuses invalid names and existing folders.
 *
 * @module
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { nameProblems } from "./_checks.ts";

const RESOURCES = ["scripts", "references", "assets"];

function template(name: string): string {
  const title = name.split("-").map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join(
    " ",
  );
  return `---
name: ${name}
description: TODO - say what this skill does and when to use it (the words a user would write). This line is all the model sees until the skill is loaded.
---

# ${title}

TODO: one paragraph on what the skill is for.

## Steps

1. TODO: the procedure, in the order the work happens.
2. TODO: exact commands, e.g. \`$RUNTIME $SKILL_DIR/scripts/example.ts\`.

## Pitfalls

- TODO: what usually goes wrong and how to notice it.
`;
}

function main(argv: string[]): void {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { path: { type: "string" }, resources: { type: "string", default: "" } },
  });
  const [name] = positionals;
  if (!name || !values.path) {
    throw new Error(
      "Usage: init_skill.ts <skill-name> --path <parent-dir> [--resources scripts,references,assets]",
    );
  }
  const problems = nameProblems(name);
  if (problems.length > 0) throw new Error(`Invalid skill name: ${problems.join("; ")}`);
  const resources = values.resources.split(",").map((item) => item.trim()).filter(Boolean);
  const unknown = resources.filter((item) => !RESOURCES.includes(item));
  if (unknown.length > 0) {
    throw new Error(
      `Unknown resource folder(s): ${unknown.join(", ")} (choose from ${RESOURCES.join(", ")})`,
    );
  }
  const directory = resolve(values.path, name);
  if (existsSync(directory)) throw new Error(`Skill folder already exists: ${directory}`);
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, "SKILL.md"), template(name), "utf8");
  for (const resource of resources) mkdirSync(join(directory, resource));
  process.stdout.write(`Created ${join(directory, "SKILL.md")}\n`);
}

try {
  main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
