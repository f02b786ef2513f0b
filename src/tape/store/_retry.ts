/**
 * Riding out a tape store outage: an operation that fails with a transient error (PostgreSQL
 * unreachable, SQLite busy, a full disk) is retried with exponential backoff for a bounded time,
 * then fails with a `temporary` BubError (`details.reason === "store_unavailable"`) that names the
 * store (its URL without the password, or its path) and keeps the last failure as `cause`.
 *
 * @module
 */
import { delay } from "../../_internal/async.ts";
import { getLogger } from "../../_internal/log.ts";
import { BubError } from "../../kernel/errors.ts";

const logger = getLogger(["bub", "tape"]);

/** The first wait after a failure. */
const FIRST_WAIT_MS = 100;
/** The longest wait between two attempts. */
const MAX_WAIT_MS = 5_000;

/** Options of {@link StoreRetry}. */
export interface StoreRetryOptions {
  /** The store kind for messages and details: `postgres`, `sqlite`, `file`. */
  readonly kind: string;
  /** The store's name in messages: its URL with the password hidden, or its path. */
  readonly name: string;
  /** How long an operation may retry, in seconds (0: fail at once). */
  readonly retrySeconds: number;
  /** True for a failure worth retrying (the store may come back); anything else fails at once. */
  readonly isTransient: (error: unknown) => boolean;
  /**
   * Aborted when the store closes (or stops retrying): a retrying operation gives up then, and
   * later failures are not retried (every operation still makes its first attempt).
   */
  readonly signal: AbortSignal;
}

/** Checks a `retrySeconds` option: a finite number >= 0 (default `fallback`). */
export function retrySecondsOption(owner: string, value: unknown, fallback = 0): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new TypeError(
      `Cannot create ${owner}: retrySeconds must be a number >= 0, got ${String(value)}`,
    );
  }
  return value;
}

/** True when `error` or one of its causes has a `code` (or `errno` name) in `codes`. */
export function hasErrorCode(error: unknown, codes: ReadonlySet<string>): boolean {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 8; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && codes.has(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * The innermost message of `error` and its causes (what actually failed), with its code when the
 * message does not hold it (Deno says "No space left on device (os error 28)" for ENOSPC).
 */
export function rootMessage(error: unknown): string {
  let message = String(error);
  let code: unknown;
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 8; depth++) {
    const text = (e as { message?: unknown }).message;
    if (typeof text === "string" && text !== "") message = text;
    code = (e as { code?: unknown }).code ?? code;
    e = (e as { cause?: unknown }).cause;
  }
  return typeof code === "string" && /^E[A-Z]+$/.test(code) && !message.includes(code)
    ? `${code}: ${message}`
    : message;
}

/**
 * The retry policy of one store: {@link run} retries transient failures with backoff (100 ms,
 * doubling, at most 5 s between attempts) until `retrySeconds` have passed. The first failure of
 * an outage logs a warning naming the store; the first success after it logs its end.
 */
export class StoreRetry {
  #options: StoreRetryOptions;
  #downSince: number | null = null;

  /**
   * Creates the object.
   *
   * @param options the store's name, the time bound and the transient test
   */
  constructor(options: StoreRetryOptions) {
    this.#options = options;
  }

  /** The store's name in messages (URL without password, or path). */
  get name(): string {
    return this.#options.name;
  }

  /**
   * Runs `op` (given the attempt number, 1 first) until it succeeds, fails with an error that is
   * not transient (rethrown as is), or the time is up (a `store_unavailable` BubError whose
   * message starts with `Cannot <what>`).
   */
  async run<T>(what: string, op: (attempt: number) => Promise<T>): Promise<T> {
    const { retrySeconds, signal } = this.#options;
    const started = Date.now();
    const deadline = started + retrySeconds * 1000;
    let wait = FIRST_WAIT_MS;
    for (let attempt = 1;; attempt++) {
      let result: T;
      try {
        result = await op(attempt);
      } catch (error) {
        if (BubError.isInstance(error) && error.details?.reason === "store_unavailable") {
          throw error;
        }
        if (!this.#options.isTransient(error)) throw error;
        const left = deadline - Date.now();
        if (left <= 0) throw this.#unavailable(what, error, started, "timeout");
        if (signal.aborted) throw this.#unavailable(what, error, started, "closed");
        this.#noteDown(error);
        try {
          await delay(Math.min(wait, left), { signal });
        } catch {
          throw this.#unavailable(what, error, started, "closed");
        }
        wait = Math.min(wait * 2, MAX_WAIT_MS);
        continue;
      }
      if (this.#downSince !== null) this.#noteUp();
      return result;
    }
  }

  #noteDown(error: unknown): void {
    if (this.#downSince !== null) return;
    this.#downSince = Date.now();
    const { kind, name, retrySeconds } = this.#options;
    logger.warn(
      "tape store {name} unreachable ({error}); retrying for up to {seconds} s",
      { kind, name, error: rootMessage(error), seconds: retrySeconds },
    );
  }

  #noteUp(): void {
    const seconds = Math.round((Date.now() - this.#downSince!) / 100) / 10;
    this.#downSince = null;
    logger.info("tape store {name} is back after {seconds} s", {
      name: this.#options.name,
      seconds,
    });
  }

  #unavailable(
    what: string,
    error: unknown,
    started: number,
    why: "timeout" | "closed",
  ): BubError {
    const { kind, name, retrySeconds } = this.#options;
    const waited = Math.round((Date.now() - started) / 100) / 10;
    const tail = why === "closed"
      ? `; gave up after ${waited} s: the store is closing`
      : retrySeconds > 0
      ? `; gave up after retrying for ${retrySeconds} s (tape_store_retry_seconds)`
      : "";
    return new BubError(
      "temporary",
      `Cannot ${what}: tape store ${name} is unavailable (${rootMessage(error)})${tail}`,
      { reason: "store_unavailable", store: kind, name, retry_seconds: retrySeconds, waited },
      { cause: error },
    );
  }
}
