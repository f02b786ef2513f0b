/**
 * How the CLI shows tool calls while a turn streams: `● name(key: value, …)` on `tool_start`,
 * then `  ⎿ completed in <ms> ms` or `  ⎿ failed in <ms> ms` with the error as indented JSON on
 * `tool_end`.
 *
 * @module
 */
import type { StreamEventOf } from "../../kernel/stream_events.ts";
import type { TextStyler } from "./_text_width.ts";
import { jsonOrString } from "../../_internal/json.ts";

/** Display limits (characters). */
export const TOOL_REPORT_LIMITS: Readonly<
  { value: number; inline: number; call: number; error: number }
> = Object.freeze({ value: 800, inline: 120, call: 1200, error: 4000 });

function cut(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}... truncated ${text.length - limit} chars`;
}

function encode(value: unknown): string {
  const text = jsonOrString(value);
  return text.length > TOOL_REPORT_LIMITS.value
    ? `${text.slice(0, TOOL_REPORT_LIMITS.value)}...`
    : text;
}

/**
 * The call line(s): inline when the whole call is at most 120 characters on one line, else one
 * parameter per line; values are JSON cut to 800 characters and the call to 1200.
 */
export function formatToolCall(name: string, args: Record<string, unknown>): string {
  const params = Object.entries(args).map(([key, value]) => `${key}: ${encode(value)}`);
  const inline = `● ${name}(${params.join(", ")})`;
  if (inline.length <= TOOL_REPORT_LIMITS.inline && !inline.includes("\n")) return inline;
  const block = [`● ${name}(`, ...params.map((param) => `    ${param},`), "  )"].join("\n");
  return cut(block, TOOL_REPORT_LIMITS.call);
}

function errorType(error: unknown): string {
  if (error instanceof Error) return error.name || error.constructor.name || "Error";
  return typeof error;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The result line: `  ⎿ completed in <ms> ms`. */
export function formatToolSuccess(elapsedMs: number): string {
  return `  ⎿ completed in ${Math.round(elapsedMs)} ms`;
}

/** The failure lines: `  ⎿ failed in <ms> ms` and the error as indented JSON `{type, message}`. */
export function formatToolError(error: unknown, elapsedMs: number): string[] {
  const json = JSON.stringify({ type: errorType(error), message: errorMessage(error) }, null, 2);
  const body = cut(json, TOOL_REPORT_LIMITS.error).split("\n").map((line) => `    ${line}`);
  return [`  ⎿ failed in ${Math.round(elapsedMs)} ms`, ...body];
}

/** Where the reporter prints. */
export interface ToolReportSink {
  /** Prints text for good (styled with `style`). */
  print(text: string): void;
  /** The styler of the output. */
  readonly style: TextStyler;
}

/** What a tool failure shows: what the tool threw (the `cause` of the normalized error). */
function thrown(error: Error | null): unknown {
  return error !== null && error.cause !== undefined ? error.cause : error;
}

/**
 * Prints a `tool_start` or `tool_end` event to `sink` (magenta call, green success, red
 * failure).
 */
export function printToolEvent(
  sink: ToolReportSink,
  event: StreamEventOf<"tool_start"> | StreamEventOf<"tool_end">,
): void {
  const { style } = sink;
  if (event.kind === "tool_start") {
    sink.print(style("magenta", formatToolCall(event.data.name, event.data.arguments)));
    return;
  }
  const { ok, error, duration_ms: elapsedMs } = event.data;
  if (ok) {
    sink.print(style("green", formatToolSuccess(elapsedMs)));
    return;
  }
  const [head, ...body] = formatToolError(thrown(error), elapsedMs);
  sink.print([style("red", head!), ...body.map((line) => style("dim", line))].join("\n"));
}
