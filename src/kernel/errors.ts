/**
 * The one error type of Bub: a kind from {@link ErrorKind}, a message and optional details.
 *
 * @module
 */

/**
 * The kinds of {@link BubError}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BubError, ErrorKind } from "@bub/core";
 * const error = new BubError(ErrorKind.NotFound, "Cannot open tape: tape \"x\" does not exist");
 * assert.equal(error.kind, "not_found");
 * ```
 */
export const ErrorKind = {
  InvalidInput: "invalid_input",
  Config: "config",
  Provider: "provider",
  Tool: "tool",
  Temporary: "temporary",
  NotFound: "not_found",
  Unknown: "unknown",
} as const;

/** One of the {@link ErrorKind} values. */
export type ErrorKind = typeof ErrorKind[keyof typeof ErrorKind];

const KINDS: ReadonlySet<string> = new Set(Object.values(ErrorKind));
const MARKER: unique symbol = Symbol.for("bub.error");

/** Returns `value` when it is an {@link ErrorKind}, else `"unknown"`. */
export function toErrorKind(value: unknown): ErrorKind {
  return typeof value === "string" && KINDS.has(value) ? value as ErrorKind : ErrorKind.Unknown;
}

/**
 * The plain-object form of a {@link BubError}, as recorded on tapes and sent to models.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BubError } from "@bub/core";
 * import type { BubErrorDict } from "@bub/core/kernel";
 * const dict: BubErrorDict = new BubError("config", "Missing model").asDict();
 * assert.deepEqual(dict, { kind: "config", message: "Missing model" });
 * ```
 */
export interface BubErrorDict {
  /** The error kind. */
  kind: ErrorKind;
  /** What went wrong. */
  message: string;
  /** Extra data, present only when non-empty. */
  details?: Record<string, unknown>;
}

/**
 * An error with a {@link ErrorKind}. Its string form is `"[<kind>] <message>"`.
 *
 * Use {@link BubError.isInstance} rather than `instanceof`: a JSR copy and an npm copy of this
 * package can be loaded side by side.
 *
 * @example Raise and inspect
 * ```ts
 * import assert from "node:assert/strict";
 * import { BubError } from "@bub/core";
 * const error = new BubError("tool", "Tool 'x' execution failed.", { error: "boom" });
 * assert.ok(String(error) === "[tool] Tool 'x' execution failed.");
 * assert.ok(BubError.isInstance(error));
 * ```
 */
export class BubError extends Error {
  /** The error kind. */
  readonly kind: ErrorKind;
  /** Extra data, or null. */
  readonly details: Record<string, unknown> | null;

  /**
   * Creates the object.
   *
   * @param kind an {@link ErrorKind}; anything else throws a `TypeError`
   * @param message what went wrong
   * @param details extra data
   * @param options the standard `cause`
   */
  constructor(
    kind: ErrorKind,
    message: string,
    details: Record<string, unknown> | null = null,
    options?: { cause?: unknown },
  ) {
    if (!KINDS.has(kind)) {
      throw new TypeError(
        `Cannot create BubError: kind must be one of ${[...KINDS].join(", ")}, got ${
          JSON.stringify(kind)
        }`,
      );
    }
    super(message, options);
    this.name = "BubError";
    Object.defineProperty(this, MARKER, { value: true });
    this.kind = kind;
    this.details = details;
  }

  /** True for a `BubError` from any copy of this package. */
  static isInstance(value: unknown): value is BubError {
    return typeof value === "object" && value !== null &&
      (value as Record<symbol, unknown>)[MARKER] === true;
  }

  /** `"[<kind>] <message>"`. */
  override toString(): string {
    return `[${this.kind}] ${this.message}`;
  }

  /** The plain-object form; `details` only when it has keys. */
  asDict(): BubErrorDict {
    const out: BubErrorDict = { kind: this.kind, message: this.message };
    if (this.details && Object.keys(this.details).length > 0) out.details = this.details;
    return out;
  }
}
