/**
 * The one place that configures logging: LogTape records of `["bub", ...]` go to stderr at the
 * level of `BUB_LOG_LEVEL` (default `warning`; `debug` with `--verbose`). An error in a record is
 * one line (`Name: message`) unless the output is verbose (`--verbose`, or a `debug`/`trace`
 * level), which shows its stack and cause.
 * Every sink redacts secrets from the formatted line: the one list of secrets
 * (`_internal/secrets.ts`: the environment's secret-named variables and every secret registered
 * from settings, such as a `config.yml` `api_key`) and `bot<digits>:<secret>`.
 *
 * @module
 */
import {
  configureSync,
  defaultTextFormatter,
  getTextFormatter,
  type LogLevel,
  parseLogLevel,
  type Sink,
  type TextFormatter,
} from "@logtape/logtape";
import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import process from "node:process";
import { redactKnownSecrets } from "../_internal/secrets.ts";

/**
 * A record formatted as a text line with secrets redacted: `bot<digits>:<secret>` patterns, the
 * registered secrets (settings) and the secret values of `env` (read at each call; default the
 * process's).
 */
export function redactedLine(
  record: Parameters<Sink>[0],
  env: Readonly<Record<string, string | undefined>> = process.env,
  formatter: TextFormatter = defaultTextFormatter,
): string {
  return redactKnownSecrets(formatter(record), { env });
}

/** `Name: message` of an error on one line (what a user sees without `--verbose`). */
export function errorLine(error: unknown): string {
  if (!(error instanceof Error)) return String(error).replace(/\s*\n\s*/g, " ");
  const message = error.message.replace(/\s*\n\s*/g, " ");
  return error.name && !["Error", "BubError"].includes(error.name)
    ? `${error.name}: ${message}`
    : message;
}

/** A text formatter rendering errors as one line (or, when `verbose`, LogTape's full inspection). */
export function cliTextFormatter(verbose: boolean): TextFormatter {
  if (verbose) return defaultTextFormatter;
  return getTextFormatter({
    value: (value, inspect) => (value instanceof Error ? errorLine(value) : inspect(value)),
  });
}

/** Whether `level` (e.g. `BUB_LOG_LEVEL`) asks for details: `debug` or `trace`. */
export function isDebugLevel(level: string | undefined): boolean {
  return level !== undefined && /^\s*(debug|trace)\s*$/i.test(level);
}

/** A sink that writes formatted records to a writable (default: stderr). */
export function stderrSink(
  write: (text: string) => void = (text) => process.stderr.write(text),
  formatter: TextFormatter = defaultTextFormatter,
): Sink {
  return (record) => write(redactedLine(record, process.env, formatter));
}

/** A sink appending formatted records to `path` (for the interactive chat, whose screen logs would break). */
export function fileSink(path: string, formatter: TextFormatter = defaultTextFormatter): Sink {
  let ready = false;
  return (record) => {
    try {
      if (!ready) mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      ready = true;
      appendFileSync(path, redactedLine(record, process.env, formatter), { mode: 0o600 });
    } catch {
      // logging must never break the chat
    }
  };
}

/**
 * Configures LogTape for the CLI (`verbose`: level `debug` unless `BUB_LOG_LEVEL` says otherwise,
 * errors in full). Returns false when logging was already configured.
 */
export function configureCliLogging(
  options: { level?: string; sink?: Sink; reset?: boolean; verbose?: boolean } = {},
): boolean {
  let level: LogLevel = options.verbose ? "debug" : "warning";
  const wanted = options.level ?? process.env.BUB_LOG_LEVEL;
  if (wanted) {
    try {
      level = parseLogLevel(wanted);
    } catch {
      process.stderr.write(`Ignoring BUB_LOG_LEVEL=${wanted}: not a log level\n`);
    }
  }
  try {
    configureSync({
      reset: options.reset ?? false,
      sinks: {
        stderr: options.sink ??
          stderrSink(undefined, cliTextFormatter(options.verbose || isDebugLevel(wanted))),
      },
      loggers: [
        { category: ["bub"], sinks: ["stderr"], lowestLevel: level },
        { category: ["logtape", "meta"], sinks: ["stderr"], lowestLevel: "warning" },
      ],
    });
    return true;
  } catch {
    return false;
  }
}
