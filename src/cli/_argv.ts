/**
 * What `main()` needs to know of the command line before commander parses it: the command name,
 * `--verbose` and `--config <file>` (the config file is read when the framework is created).
 *
 * @module
 */

/** The result of {@link scanArgv}. */
export interface ScannedArgv {
  /** The command name: the first argument that is neither an option nor its value. */
  command: string | undefined;
  /** `--verbose` was given. */
  verbose: boolean;
  /** The value of `--config`, if given. */
  config: string | undefined;
}

/** Global options that take a value as the next argument. */
const VALUE_OPTIONS = new Set(["-w", "--workspace", "--config"]);

/**
 * Scans `argv` (without the runtime and script) for the command and the global options.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scanArgv } from "./_argv.ts";
 * const scanned = scanArgv(["--config", "c.yml", "run", "--verbose", "hi"]);
 * assert.ok(scanned.command === "run" && scanned.verbose && scanned.config === "c.yml");
 * ```
 */
export function scanArgv(argv: readonly string[]): ScannedArgv {
  const result: ScannedArgv = { command: undefined, verbose: false, config: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      result.command ??= argv[i + 1];
      break;
    }
    if (arg === "--verbose") result.verbose = true;
    else if (arg === "--config") result.config = argv[++i];
    else if (arg.startsWith("--config=")) result.config = arg.slice("--config=".length);
    else if (VALUE_OPTIONS.has(arg)) {
      if (result.command === undefined) i++;
    } else if (!arg.startsWith("-")) result.command ??= arg;
  }
  return result;
}
