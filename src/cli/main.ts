#!/usr/bin/env node
/**
 * The `bub` entry point.
 *
 * @module
 */
import process from "node:process";
import { BubFramework } from "../builtin/framework.ts";

/**
 * Runs the `bub` command with `argv` (without the runtime and script) and returns the exit code.
 *
 * @example
 * ```ts ignore
 * import { main } from "@bub/core/cli";
 * process.exitCode = await main(["hooks"]);
 * ```
 */
export async function main(argv: string[] = process.argv.slice(2)): Promise<number> {
  const framework = new BubFramework();
  await framework.loadHooks();
  const [command] = argv;
  if (command === "hooks") {
    const report = framework.hookReport();
    const lines = Object.entries(report).map(([hook, names]) => `${hook}: ${names.join(", ")}`);
    process.stdout.write((lines.length ? lines.join("\n") : "(no hook implementations)") + "\n");
    return 0;
  }
  process.stderr.write(`Usage: bub hooks\n(more commands arrive with the CLI issue)\n`);
  return command === undefined || command === "help" ? 0 : 2;
}

if (import.meta.main) {
  process.exitCode = await main();
}
