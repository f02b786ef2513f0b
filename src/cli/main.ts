/**
 * The `bub` command line: loads `./.env`, builds the framework, loads plugins and runs a command.
 * A failure prints one line (`bub: <what failed> (run again with --verbose for details)`); the
 * details (stack, cause) only with `--verbose` or `BUB_LOG_LEVEL=debug`.
 *
 * @module
 */
import process from "node:process";
import { join } from "node:path";
import { BubFramework } from "../builtin/framework.ts";
import { CliExit } from "../builtin/cli_io.ts";
import { pluginCommandLoading } from "../builtin/plugin_commands.ts";
import { loadDotenv } from "../kernel/configure.ts";
import type { FrameworkOptions } from "../kernel/framework.ts";
import { VERSION } from "../version.ts";
import { scanArgv } from "./_argv.ts";
import { createCliApp } from "./cli_app.ts";
import { startDemoModel } from "./demo_model.ts";
import { failureText } from "./failure.ts";
import { onceSink } from "./errors_once.ts";
import {
  cliTextFormatter,
  configureCliLogging,
  fileSink,
  isDebugLevel,
  stderrSink,
} from "./logging.ts";
import { type SignalTrap, type TrappedSignal, trapSignals } from "./signals.ts";
import { type CliTracing, startCliTracing } from "./tracing.ts";
import { redactSecrets, secretEnvValues } from "../_internal/redact.ts";

/**
 * Options of {@link main}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { main, type MainOptions } from "@bub/core/cli";
 * let printed = "";
 * const options: MainOptions = {
 *   stdout: (text) => void (printed += text),
 *   configureLogging: false,
 *   loadDotenv: false,
 *   trapSignals: false,
 * };
 * assert.equal(await main(["--version"], options), 0);
 * assert.match(printed, /\d+\.\d+\.\d+/);
 * ```
 */
export interface MainOptions {
  /** Writes standard output. */
  stdout?: (text: string) => void;
  /** Writes standard error. */
  stderr?: (text: string) => void;
  /** Framework options (config file, home, workspace). */
  framework?: FrameworkOptions;
  /** Configure logging to stderr. Default true. */
  configureLogging?: boolean;
  /**
   * Load `<cwd>/.env` into `process.env` (never overriding a set variable). Default true, unless
   * `framework.loadDotenv` is false.
   */
  loadDotenv?: boolean;
  /** End `run` on SIGINT/SIGTERM/SIGHUP and `chat`/`gateway` on SIGHUP. Default true. */
  trapSignals?: boolean;
}

/** The signals that end each command (the others keep their own handling). */
const COMMAND_SIGNALS: Record<string, readonly TrappedSignal[]> = {
  run: ["SIGINT", "SIGTERM", "SIGHUP"],
  chat: ["SIGHUP"],
  gateway: ["SIGHUP"],
  web: ["SIGHUP"],
  install: ["SIGINT", "SIGTERM", "SIGHUP"],
  uninstall: ["SIGINT", "SIGTERM", "SIGHUP"],
  update: ["SIGINT", "SIGTERM", "SIGHUP"],
  login: ["SIGINT", "SIGTERM", "SIGHUP"],
};

/**
 * Runs the `bub` command with `argv` (without the runtime and script) and returns the exit code:
 * 0 on success, 2 for usage errors, 1 for failures, 128 + n after signal n.
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
  // `deno task bub -- run …` (like `npm run x -- …`) passes the `--` on: before the command it
  // means nothing, so it goes.
  if (argv[0] === "--") argv = argv.slice(1);
  const stdout = options.stdout ?? ((text: string) => void process.stdout.write(text));
  const stderr = options.stderr ?? ((text: string) => void process.stderr.write(text));
  const scanned = scanArgv(argv);
  if (options.loadDotenv ?? options.framework?.loadDotenv !== false) loadDotenv(process.cwd());
  const verbose = scanned.verbose || isDebugLevel(process.env.BUB_LOG_LEVEL);
  const logging = options.configureLogging !== false;
  // Each error once on the terminal; `bub run` holds error records until it ends, so that its
  // own `bub: …` line is the only report of the error it fails with.
  // With --verbose (or a debug log level) every record is shown as it comes.
  const terminalSink = onceSink(stderrSink(undefined, cliTextFormatter(verbose)), {
    hold: scanned.command === "run",
    off: verbose,
  });
  if (logging) configureCliLogging({ verbose: scanned.verbose, sink: terminalSink });
  const fail = (error: unknown): number => {
    terminalSink.settle(error);
    stderr(redactSecrets(failureText(error, verbose), secretEnvValues(process.env)));
    return 1;
  };
  let framework: BubFramework;
  try {
    framework = new BubFramework({
      ...options.framework,
      ...(scanned.config ? { configFile: scanned.config } : {}),
    });
    framework.cliOutput = { out: stdout, err: stderr };
    framework.demoModel = startDemoModel;
    if (logging && scanned.command === "chat") {
      // The chat owns the screen: its logs go to <home>/logs/bub.log.
      configureCliLogging({
        sink: fileSink(join(framework.home, "logs", "bub.log"), cliTextFormatter(verbose)),
        reset: true,
        verbose: scanned.verbose,
      });
    }
    await framework.loadHooks(pluginCommandLoading(scanned.command, framework.config));
  } catch (error) {
    return fail(error);
  }
  const app = createCliApp(framework);
  app.version(VERSION, "-V, --version", "print the version")
    .option("--config <file>", "the config file (default: $BUB_CONFIG, else <BUB_HOME>/config.yml)")
    .option("--verbose", "show the details of failures (stack, cause) and debug logs");
  app.exitOverride();
  app.configureOutput({ writeOut: stdout, writeErr: stderr });
  for (const command of app.commands) {
    command.exitOverride();
    command.configureOutput({ writeOut: stdout, writeErr: stderr });
  }
  const signals = COMMAND_SIGNALS[scanned.command ?? ""];
  let trap: SignalTrap | null = null;
  if (signals && options.trapSignals !== false) {
    trap = trapSignals(signals);
    framework.cliSignal = trap.signal;
  }
  let tracing: CliTracing | null = null;
  try {
    tracing = await startCliTracing();
    await app.parseAsync(argv, { from: "user" });
    terminalSink.settle(null);
    return trap?.exitCode ?? 0;
  } catch (error) {
    if (trap?.exitCode != null) return trap.exitCode;
    if (error instanceof CliExit) {
      if (error.message) stderr(`${error.message}\n`);
      return error.exitCode;
    }
    const code = (error as { code?: unknown; exitCode?: unknown }).code;
    const exitCode = (error as { exitCode?: unknown }).exitCode;
    if (typeof code === "string" && code.startsWith("commander.")) {
      return typeof exitCode === "number" ? (exitCode === 1 ? 2 : exitCode) : 2;
    }
    return fail(error);
  } finally {
    terminalSink.settle(null);
    trap?.dispose();
    framework.cliSignal = null;
    await tracing?.shutdown();
  }
}
