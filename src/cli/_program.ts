/**
 * Private: running the `bub` command as the program (the npm `bin`, or `src/cli/mod.ts` run as
 * the main module): arguments from `process.argv`, the exit code into `process.exitCode`.
 *
 * @module
 */
import process from "node:process";
import { main } from "./main.ts";
import { handOffEnvSecrets } from "./secret_handoff.ts";

/**
 * Runs `bub` with the process arguments and sets the process exit code. First, on Linux, the
 * process starts again without API keys and tokens in its start-up environment (once per process;
 * see `secret_handoff.ts`).
 */
export async function runProgram(): Promise<void> {
  if (!(await handOffEnvSecrets())) {
    process.exitCode = 1;
    return;
  }
  const code = await main(process.argv.slice(2));
  process.exitCode = code;
  // The command has finished: a handle left open (e.g. a long poll a library failed to abort on
  // shutdown) must not keep the process alive. The timer is unref'd, so normally it never fires.
  setTimeout(() => process.exit(code), 2000).unref();
}

/**
 * True when the module at `url` is the program's entry: `main` is its `import.meta.main`, and
 * `url` still names the CLI module itself (a bundle that inlined it has its own URL, so a bundled
 * application that imports the CLI does not start it).
 */
export function isProgramEntry(url: string, main: boolean | undefined): boolean {
  return main === true && /\/cli\/(mod|bin)\.[cm]?[jt]s$/.test(new URL(url).pathname);
}
