/**
 * Each error on the terminal once. A failure travels up through several layers that each log it
 * (the tool, the turn) before `bub` prints its own `bub: …` line; this sink shows an error the
 * first time a record carries it and drops later records about the same error (or one that
 * wraps it as a cause). For a one-shot command (`bub run`) error records are held until the
 * command ends: those about the error the command fails with are dropped, since its `bub:` line
 * says it; the others are written then.
 *
 * @module
 */
import type { LogRecord, Sink } from "@logtape/logtape";

/** A sink that shows each error once; settle it when the command ends. */
export interface OnceSink extends Sink {
  /** Writes the held records, except those about `failure` (null: the command succeeded). */
  settle(failure: unknown): void;
}

/** The errors a record carries in its properties. */
function errorsOf(record: LogRecord): Error[] {
  return Object.values(record.properties).filter((value): value is Error => value instanceof Error);
}

/** `error` and its causes (at most 8 links). */
function chain(error: unknown): unknown[] {
  const links: unknown[] = [];
  for (let item = error, i = 0; item !== undefined && item !== null && i < 8; i++) {
    links.push(item);
    item = (item as { cause?: unknown }).cause;
  }
  return links;
}

/**
 * Wraps `inner`; with `hold`, error-level records carrying an error wait for {@link OnceSink.settle};
 * with `off`, every record passes as it comes (`--verbose`).
 *
 * @example
 * ```ts
 * import { onceSink } from "./errors_once.ts";
 * const lines: unknown[] = [];
 * const sink = onceSink((record) => void lines.push(record.message), { hold: false });
 * sink.settle(null);
 * console.assert(lines.length === 0);
 * ```
 */
export function onceSink(inner: Sink, options: { hold: boolean; off?: boolean }): OnceSink {
  if (options.off) return Object.assign((record: LogRecord) => inner(record), { settle() {} });
  const shown = new WeakSet<object>();
  const held: LogRecord[] = [];
  const seen = (error: Error): boolean => chain(error).some((link) => shown.has(link as object));
  const sink = ((record: LogRecord) => {
    const errors = errorsOf(record);
    if (errors.some(seen)) return;
    for (const error of errors) shown.add(error);
    if (
      options.hold && errors.length > 0 && (record.level === "error" || record.level === "fatal")
    ) {
      held.push(record);
      return;
    }
    inner(record);
  }) as OnceSink;
  sink.settle = (failure) => {
    const failed = new Set(chain(failure));
    const about = (record: LogRecord) =>
      errorsOf(record).some((error) =>
        failed.has(error) || chain(error).some((link) => failed.has(link))
      );
    for (const record of held.splice(0)) if (!about(record)) inner(record);
  };
  return sink;
}
