/**
 * Captures LogTape records of the `["bub"]` category tree in memory for assertions.
 *
 * @module
 */
import { configure, type LogRecord, reset } from "@logtape/logtape";

/** Renders one interpolated value of a log message as text. */
function renderValue(value: unknown): string {
  if (typeof value === "string") return value;
  if (value instanceof Error) return String(value);
  if (typeof value === "object" && value !== null) {
    try {
      return JSON.stringify(value);
    } catch {
      return String(value);
    }
  }
  return String(value);
}

/**
 * The message of a record as text: template parts joined with their interpolated values, e.g.
 * `hook.async_not_supported hook=systemPrompt adapter=p`.
 */
export function renderMessage(record: LogRecord): string {
  return record.message.map((part, i) => (i % 2 === 0 ? String(part) : renderValue(part))).join("");
}

/** An active capture; dispose it (or call `stop`) to reset LogTape. */
export interface LogCapture extends AsyncDisposable {
  /** Every captured record, oldest first. */
  readonly records: LogRecord[];
  /** The rendered messages of the captured records. */
  messages(): string[];
  /** The rendered messages at `level` or above ("warning" includes "error" and "fatal"). */
  warnings(): string[];
  /** Resets LogTape. */
  stop(): Promise<void>;
}

/**
 * Configures LogTape to send every `["bub", ...]` record (debug and up) to memory; the meta logger
 * of LogTape itself is silenced. Use with `await using logs = await captureLogs();`.
 */
export async function captureLogs(): Promise<LogCapture> {
  const records: LogRecord[] = [];
  await configure({
    sinks: { mem: (record: LogRecord) => void records.push(record) },
    loggers: [
      { category: ["bub"], sinks: ["mem"], lowestLevel: "debug" },
      { category: ["logtape", "meta"], sinks: [] },
    ],
    reset: true,
  });
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await reset();
  };
  return {
    records,
    messages: () => records.map(renderMessage),
    warnings: () =>
      records.filter((r) => r.level === "warning" || r.level === "error" || r.level === "fatal")
        .map(renderMessage),
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
