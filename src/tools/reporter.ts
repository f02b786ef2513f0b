/**
 * The tool-call reporter: an observer installed for an async context (the CLI shows tool calls
 * while streaming). Without one, tool calls are logged under `["bub", "tools"]`.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { type BubLogger as Logger, getLogger } from "../_internal/log.ts";
import { isCancellation } from "../kernel/agent_hooks.ts";
import { jsonOrString } from "../_internal/json.ts";

/**
 * Observes tool calls made in the async context where it is installed. Each method may be async
 * and is awaited; a method that throws is logged under `["bub", "meta"]` and does not fail the
 * tool call.
 *
 * @example
 * ```ts
 * import { type ToolCallReporter, withToolCallReporter } from "@bub/core/tools";
 * const reporter: ToolCallReporter = {
 *   start: (name, args) => console.log(`> ${name}`, args),
 *   success: (name, _result, elapsedMs) => console.log(`< ${name} ${elapsedMs} ms`),
 *   error: (name, error) => console.log(`! ${name}`, error),
 * };
 * // Tools called inside report to it.
 * withToolCallReporter(reporter, () => console.log("run tools here"));
 * ```
 */
export interface ToolCallReporter {
  /** A tool starts; `args` are the raw arguments (never the tool context). */
  start(name: string, args: Record<string, unknown>): void | PromiseLike<void>;
  /** A tool returned `result` after `elapsedMs` milliseconds. */
  success(name: string, result: unknown, elapsedMs: number): void | PromiseLike<void>;
  /** A tool threw `error` after `elapsedMs` milliseconds. */
  error(name: string, error: unknown, elapsedMs: number): void | PromiseLike<void>;
}

let storage: AsyncLocalStorage<ToolCallReporter | null> | undefined;
let toolsLogger: Logger | undefined;
let metaLogger: Logger | undefined;

function reporterStorage(): AsyncLocalStorage<ToolCallReporter | null> {
  return storage ??= new AsyncLocalStorage<ToolCallReporter | null>();
}

/**
 * Runs `fn` with `reporter` installed for every tool call made inside it (including across
 * `await`s and in promises started there); `null` uninstalls an outer reporter.
 *
 * @example Print tool calls while a turn runs
 * ```ts
 * import { withToolCallReporter } from "@bub/core/tools";
 * await withToolCallReporter({
 *   start: (name, args) => console.log(`● ${name}`, args),
 *   success: (name, _result, ms) => console.log(`  ⎿ ${name} completed in ${ms} ms`),
 *   error: (name, _error, ms) => console.log(`  ⎿ ${name} failed in ${ms} ms`),
 * }, async () => {
 *   // run a turn here
 * });
 * ```
 */
export function withToolCallReporter<T>(reporter: ToolCallReporter | null, fn: () => T): T {
  return reporterStorage().run(reporter, fn);
}

/**
 * The reporter installed in the current async context, or null.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { currentToolCallReporter, withToolCallReporter } from "@bub/core/tools";
 * const reporter = { start() {}, success() {}, error() {} };
 * assert.equal(withToolCallReporter(reporter, () => currentToolCallReporter()), reporter);
 * assert.equal(currentToolCallReporter(), null);
 * ```
 */
export function currentToolCallReporter(): ToolCallReporter | null {
  return storage?.getStore() ?? null;
}

const VALUE_LIMIT = 100;
const CLOSERS = '"}]';

function shortValue(value: unknown): string {
  const text = jsonOrString(value);
  if (text.length <= VALUE_LIMIT) return text;
  const last = text.at(-1)!;
  return `${text.slice(0, VALUE_LIMIT)}...${CLOSERS.includes(last) ? last : ""}`;
}

/**
 * The argument block of the `tool.call.start` log line: `{ k=v, … }`, each value JSON-encoded
 * and cut to 100 characters with `...` (a closing `"`, `}` or `]` is re-appended when cut).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatToolArguments } from "@bub/core/tools";
 * assert.equal(formatToolArguments({ path: "a.txt", n: 2 }), '{ path="a.txt", n=2 }');
 * ```
 */
export function formatToolArguments(args: Record<string, unknown>): string {
  const parts = Object.entries(args).map(([key, value]) => `${key}=${shortValue(value)}`);
  return parts.length === 0 ? "{ }" : `{ ${parts.join(", ")} }`;
}

async function notify(
  reporter: ToolCallReporter,
  method: "start" | "success" | "error",
  args: [string, unknown, number?],
): Promise<void> {
  try {
    const fn = reporter[method] as (...a: unknown[]) => unknown;
    const value = fn.apply(reporter, args);
    if (value && typeof (value as PromiseLike<unknown>).then === "function") await value;
  } catch (error) {
    (metaLogger ??= getLogger(["bub", "meta"])).warn(
      "tool.reporter_failed method={method} name={name}: {error}",
      { method, name: args[0], error },
    );
  }
}

/**
 * Runs `call` as the tool call `name` with `args`: reports start/success/error to the current
 * {@link ToolCallReporter}, or logs `tool.call.start` / `tool.call.success` / `tool.call.error`
 * (`tool.call.cancelled` at info level for a cancellation) under `["bub", "tools"]` when none is
 * installed. The outcome of `call` is returned or rethrown
 * unchanged.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { reportToolCall, withToolCallReporter } from "@bub/core/tools";
 * const seen: string[] = [];
 * const reporter = { start: (name: string) => void seen.push(`start ${name}`), success: () => void seen.push("ok"), error() {} };
 * const value = await withToolCallReporter(reporter, () => reportToolCall("ls", {}, async () => 3));
 * assert.equal(value, 3);
 * assert.deepEqual(seen, ["start ls", "ok"]);
 * ```
 */
export async function reportToolCall<T>(
  name: string,
  args: Record<string, unknown>,
  call: () => Promise<T>,
): Promise<T> {
  const reporter = currentToolCallReporter();
  const logger = reporter ? undefined : (toolsLogger ??= getLogger(["bub", "tools"]));
  if (reporter) await notify(reporter, "start", [name, { ...args }]);
  else if (logger!.isEnabledFor("info")) {
    logger!.info("tool.call.start name={name} {arguments}", {
      name,
      arguments: formatToolArguments(args),
    });
  }
  const started = performance.now();
  let result: T;
  try {
    result = await call();
  } catch (error) {
    const elapsed = performance.now() - started;
    if (reporter) await notify(reporter, "error", [name, error, elapsed]);
    else if (isCancellation(error)) {
      // A stop the user asked for (or a turn's deadline) is not a failure of the tool.
      logger!.info("tool.call.cancelled name={name} elapsed_time={elapsedTime}ms: {reason}", {
        name,
        elapsedTime: elapsed.toFixed(2),
        reason: error instanceof Error ? error.message : String(error),
      });
    } else {
      logger!.error("tool.call.error name={name} elapsed_time={elapsedTime}ms: {error}", {
        name,
        elapsedTime: elapsed.toFixed(2),
        error,
      });
    }
    throw error;
  }
  const elapsed = performance.now() - started;
  if (reporter) await notify(reporter, "success", [name, result, elapsed]);
  else if (logger!.isEnabledFor("info")) {
    logger!.info("tool.call.success name={name} elapsed_time={elapsedTime}ms", {
      name,
      elapsedTime: elapsed.toFixed(2),
    });
  }
  return result;
}
