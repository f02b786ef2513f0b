/**
 * The `bub` command line: builds the framework, loads plugins and runs a command.
 *
 * @module
 */
import process from "node:process";
import { BubFramework } from "../builtin/framework.ts";
import type { FrameworkOptions } from "../kernel/framework.ts";
import { configureCliLogging, fileSink } from "./logging.ts";
import { join } from "node:path";
import { CliExit } from "../builtin/cli_commands.ts";
import { BubError } from "../kernel/errors.ts";
import { redactSecrets, secretEnvValues } from "../_internal/redact.ts";

/** The command name in `argv`: the first argument that is neither an option nor its value. */
function commandName(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") return argv[i + 1];
    if (arg === "-w" || arg === "--workspace") i++;
    else if (!arg.startsWith("-")) return arg;
  }
  return undefined;
}

/** Options of {@link main}. */
export interface MainOptions {
  /** Writes standard output. */
  stdout?: (text: string) => void;
  /** Writes standard error. */
  stderr?: (text: string) => void;
  /** Framework options (config file, home, workspace). */
  framework?: FrameworkOptions;
  /** Configure logging to stderr. Default true. */
  configureLogging?: boolean;
}

/**
 * Runs the `bub` command with `argv` (without the runtime and script) and returns the exit code:
 * 0 on success, 2 for usage errors, 1 for failures.
 *
 * @example
 * ```ts ignore
 * import { main } from "@bub/core/cli";
 * process.exitCode = await main(["run", "hello"]);
 * ```
 */
export async function main(
  argv: string[] = process.argv.slice(2),
  options: MainOptions = {},
): Promise<number> {
  const stdout = options.stdout ?? ((text: string) => void process.stdout.write(text));
  const stderr = options.stderr ?? ((text: string) => void process.stderr.write(text));
  if (options.configureLogging !== false) configureCliLogging();
  let framework: BubFramework;
  try {
    framework = new BubFramework(options.framework);
    framework.cliOutput = { out: stdout, err: stderr };
    if (options.configureLogging !== false && commandName(argv) === "chat") {
      // The chat owns the screen: its logs go to <home>/logs/bub.log.
      configureCliLogging({ sink: fileSink(join(framework.home, "logs", "bub.log")), reset: true });
    }
    await framework.loadHooks();
  } catch (error) {
    stderr(`bub: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  const app = framework.createCliApp();
  app.exitOverride();
  app.configureOutput({ writeOut: stdout, writeErr: stderr });
  for (const command of app.commands) {
    command.exitOverride();
    command.configureOutput({ writeOut: stdout, writeErr: stderr });
  }
  try {
    await app.parseAsync(argv, { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof CliExit) {
      if (error.message) stderr(`${error.message}\n`);
      return error.exitCode;
    }
    const code = (error as { code?: unknown; exitCode?: unknown }).code;
    const exitCode = (error as { exitCode?: unknown }).exitCode;
    if (typeof code === "string" && code.startsWith("commander.")) {
      return typeof exitCode === "number" ? (exitCode === 1 ? 2 : exitCode) : 2;
    }
    if (BubError.isInstance(error) && error.kind === "config") {
      stderr(`bub: ${error.message}\n`);
      return 1;
    }
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    stderr(`${redactSecrets(text, secretEnvValues(process.env))}\n`);
    return 1;
  }
}
