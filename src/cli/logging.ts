/**
 * The one place that configures logging: LogTape records of `["bub", ...]` go to stderr at the
 * level of `BUB_LOG_LEVEL` (default `warning`). Every sink redacts secrets from the formatted line:
 * values of `BUB_*KEY*`, `BUB_*TOKEN*`, `BUB_*SECRET*` variables and `bot<digits>:<secret>`.
 *
 * @module
 */
import {
  configureSync,
  defaultTextFormatter,
  type LogLevel,
  parseLogLevel,
  type Sink,
} from "@logtape/logtape";
import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import process from "node:process";
import { redactSecrets, secretEnvValues } from "../_internal/redact.ts";

/**
 * A record formatted as a text line with secrets redacted: `bot<digits>:<secret>` patterns and
 * the values of the secret-named variables of `env` (read at each call; default the process's).
 */
export function redactedLine(
  record: Parameters<Sink>[0],
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  return redactSecrets(defaultTextFormatter(record), secretEnvValues(env));
}

/** A sink that writes formatted records to a writable (default: stderr). */
export function stderrSink(
  write: (text: string) => void = (text) => process.stderr.write(text),
): Sink {
  return (record) => write(redactedLine(record));
}

/** A sink appending formatted records to `path` (for the interactive chat, whose screen logs would break). */
export function fileSink(path: string): Sink {
  let ready = false;
  return (record) => {
    try {
      if (!ready) mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      ready = true;
      appendFileSync(path, redactedLine(record), { mode: 0o600 });
    } catch {
      // logging must never break the chat
    }
  };
}

/** Configures LogTape for the CLI. Returns false when logging was already configured. */
export function configureCliLogging(
  options: { level?: string; sink?: Sink; reset?: boolean } = {},
): boolean {
  let level: LogLevel = "warning";
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
      sinks: { stderr: options.sink ?? stderrSink() },
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
