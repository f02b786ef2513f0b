/**
 * The resource scope of `BubFramework.running()`: a generator-as-context-manager adapter and an
 * exit stack that unwinds in reverse order with Python context-manager semantics.
 *
 * @module
 */
import { BubError } from "./errors.ts";

/**
 * A cleanup on the exit stack; receives the error being propagated (or undefined).
 *
 * @example
 * ```ts
 * import { RunningScope, type ExitCallback } from "@bub/core/kernel";
 * const logError: ExitCallback = (error) => {
 *   if (error) console.error("scope closed by", error);
 * };
 * await using scope = new RunningScope();
 * scope.defer(logError, "log");
 * ```
 */
export type ExitCallback = (error: unknown) => void | Promise<void> | boolean | Promise<boolean>;

/** Thrown value wrapper so `undefined` errors are told apart from "no error". */
interface Pending {
  error: unknown;
}

function isIterator(value: unknown): value is Iterator<unknown> | AsyncIterator<unknown> {
  return typeof value === "object" && value !== null &&
    typeof (value as { next?: unknown }).next === "function";
}

function isAsyncIterator(value: unknown): boolean {
  return isIterator(value) && Symbol.asyncIterator in (value as object) ||
    Object.prototype.toString.call(value) === "[object AsyncGenerator]";
}

/**
 * The scope yielded by `BubFramework.running()`. Register cleanups with {@link defer}; they run
 * first on exit. `await using` exits normally; {@link close} with an error throws it into the
 * entered generators (a generator that swallows it suppresses it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RunningScope } from "@bub/core/kernel";
 * const order: string[] = [];
 * {
 *   await using scope = new RunningScope();
 *   scope.defer(() => void order.push("first registered"));
 *   scope.defer(() => void order.push("last registered"));
 * }
 * assert.deepEqual(order, ["last registered", "first registered"]);
 * ```
 */
export class RunningScope implements AsyncDisposable {
  #exits: { label: string; exit: ExitCallback }[] = [];
  #closed: Promise<void> | null = null;
  #onExit: (() => Promise<void>) | null;

  /**
   * Creates the object.
   *
   * @param onExit runs first on exit, before the stack unwinds (the framework's own cleanup)
   */
  constructor(onExit: (() => Promise<void>) | null = null) {
    this.#onExit = onExit;
  }

  /** Adds a cleanup; cleanups run in reverse order of registration. */
  defer(exit: ExitCallback, label: string = "cleanup"): void {
    if (this.#closed) throw new Error(`Cannot defer ${label}: the running scope is closed`);
    this.#exits.push({ label, exit });
  }

  /**
   * Enters `value` when it is a generator/iterator (advancing it once; the yielded value is the
   * resource, resumed or thrown into on exit); returns any other value unchanged.
   */
  async enter<T>(value: unknown, label: string): Promise<T> {
    if (!isIterator(value)) return value as T;
    const iterator = value as AsyncIterator<unknown> & Iterator<unknown>;
    const isAsync = isAsyncIterator(value);
    let first: IteratorResult<unknown>;
    try {
      first = await iterator.next();
    } catch (error) {
      if (BubError.isInstance(error)) throw error;
      throw new BubError(
        "unknown",
        `Cannot enter ${label}: ${error instanceof Error ? error.message : String(error)}`,
        null,
        { cause: error },
      );
    }
    if (first.done) throw new TypeError(`Cannot enter ${label}: the generator did not yield`);
    this.defer(async (error) => {
      let result: IteratorResult<unknown>;
      if (error === undefined) {
        result = await iterator.next();
        if (!result.done) {
          if (isAsync) await iterator.return?.(undefined);
          else iterator.return?.(undefined);
          throw new TypeError(`Cannot exit ${label}: the generator yielded more than once`);
        }
        return false;
      }
      if (typeof iterator.throw !== "function") {
        if (isAsync) await iterator.return?.(undefined);
        else iterator.return?.(undefined);
        return false;
      }
      result = await iterator.throw(error);
      if (!result.done) {
        if (isAsync) await iterator.return?.(undefined);
        else iterator.return?.(undefined);
        throw new TypeError(`Cannot exit ${label}: the generator yielded more than once`);
      }
      return true; // swallowed
    }, label);
    return first.value as T;
  }

  /**
   * Exits the scope: the framework cleanup first, then every cleanup in reverse order. `error`
   * (when given) is the body's error; the returned promise rejects with the error still
   * propagating after the unwind, if any.
   */
  close(error?: unknown): Promise<void> {
    if (this.#closed) return this.#closed;
    const pending: Pending | null = arguments.length > 0 && error !== undefined ? { error } : null;
    this.#closed = this.#unwind(pending);
    return this.#closed;
  }

  async #unwind(initial: Pending | null): Promise<void> {
    let pending = initial;
    try {
      await this.#onExit?.();
    } catch (error) {
      pending = { error };
    }
    while (this.#exits.length > 0) {
      const { exit } = this.#exits.pop()!;
      try {
        const suppressed = await exit(pending?.error);
        if (suppressed === true && pending) pending = null;
      } catch (error) {
        pending = { error };
      }
    }
    if (pending) throw pending.error;
  }

  /** Exits normally (for `await using`). */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
