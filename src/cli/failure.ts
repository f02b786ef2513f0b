/**
 * What `bub` prints when a command fails: one line naming what failed, or with details (stack
 * and causes) when verbose; either way with every known secret (the environment's and the
 * settings', see `_internal/secrets.ts`) redacted.
 *
 * @module
 */
import { redactKnownSecrets } from "../_internal/secrets.ts";
import { errorLine } from "./logging.ts";

const HINT = "(run again with --verbose for details)";

/** The stack (or message) of `error` and of each `cause` below it. */
function details(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    parts.push(
      current instanceof Error ? (current.stack ?? errorLine(current)) : String(current),
    );
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join("\nCaused by: ");
}

/**
 * The text printed for a failed command: `bub: <Name: message> (run again with --verbose for
 * details)`, or with `verbose` the stack and causes; known secrets are `[REDACTED]`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { failureText } from "./failure.ts";
 * const text = failureText(new RangeError("bad timeout"), false);
 * assert.ok(text === "bub: RangeError: bad timeout (run again with --verbose for details)\n");
 * ```
 */
export function failureText(error: unknown, verbose: boolean): string {
  const text = verbose ? `bub: ${details(error)}\n` : `bub: ${errorLine(error)} ${HINT}\n`;
  return redactKnownSecrets(text);
}
