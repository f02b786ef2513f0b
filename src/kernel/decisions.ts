/**
 * Decisions of the `beforeLlmCall` / `beforeToolCall` hooks. A decision is recognised by its
 * shape, not its class: a plain object such as `{ action: "deny", reason }` works everywhere a
 * {@link ToolCallDecision} does, and the classes are constructors of the same shapes.
 *
 * @module
 */
import { BubError } from "./errors.ts";

/**
 * Run the tool, optionally with new arguments (`args`, or `arguments` as the class names it).
 *
 * @example
 * ```ts
 * import { definePlugin } from "@bub/core";
 * import type { ProceedDecision } from "@bub/core";
 * const quieter = definePlugin({
 *   name: "quieter",
 *   beforeToolCall: ({ call }): ProceedDecision => ({
 *     action: "proceed",
 *     args: { ...call.arguments, verbose: false },
 *   }),
 * });
 * ```
 */
export interface ProceedDecision {
  /** The action. */
  readonly action: "proceed";
  /** New arguments for the call; null or absent keeps them. */
  readonly args?: Record<string, unknown> | null;
  /** The same as `args` (the class field's name); `args` wins when both are set. */
  readonly arguments?: Record<string, unknown> | null;
}

/**
 * Skip the tool and use `result` as its value.
 *
 * @example
 * ```ts
 * import { definePlugin } from "@bub/core";
 * import type { ReplaceDecision } from "@bub/core";
 * const cached = definePlugin({
 *   name: "cache",
 *   beforeToolCall: ({ call }): ReplaceDecision | null =>
 *     call.tool === "web.fetch" ? { action: "replace", result: "cached page" } : null,
 * });
 * ```
 */
export interface ReplaceDecision {
  /** The action. */
  readonly action: "replace";
  /** The value the model sees. */
  readonly result: unknown;
}

/**
 * Skip the tool and fail the invocation with `reason` (or `message`, as the class names it).
 *
 * @example
 * ```ts
 * import { definePlugin } from "@bub/core";
 * import type { DenyDecision } from "@bub/core";
 * const readOnly = definePlugin({
 *   name: "read-only",
 *   beforeToolCall: ({ call }): DenyDecision | null =>
 *     call.tool === "fs.write" ? { action: "deny", reason: "read-only workspace" } : null,
 * });
 * ```
 */
export interface DenyDecision {
  /** The action. */
  readonly action: "deny";
  /** Why the call is denied. */
  readonly reason?: string | null;
  /** The same as `reason` (the class field's name); `reason` wins when both are set. */
  readonly message?: string | null;
}

/**
 * Do not run the tool until a person approves it: the turn suspends with an approval request
 * (`reason` says why; `match` is the pattern an "always" approval covers, default every call of
 * the tool).
 *
 * @example
 * ```ts
 * import { definePlugin } from "@bub/core";
 * import type { AskDecision } from "@bub/core";
 * const careful = definePlugin({
 *   name: "careful",
 *   beforeToolCall: ({ call }): AskDecision | null =>
 *     call.tool === "bash" ? { action: "ask", reason: "shell commands need a yes" } : null,
 * });
 * ```
 */
export interface AskDecision {
  /** The action. */
  readonly action: "ask";
  /** Why a person must approve the call. */
  readonly reason?: string | null;
  /** The regular expression (over the call's JSON arguments) an "always" approval covers. */
  readonly match?: string | null;
}

/**
 * A plain tool-call decision: `proceed`, `replace`, `deny` or `ask`.
 *
 * @example
 * ```ts
 * import type { ToolDecision } from "@bub/core";
 * function decide(tool: string): ToolDecision {
 *   return tool.startsWith("fs.") ? { action: "proceed" } : { action: "deny", reason: "not allowed" };
 * }
 * decide("bash");
 * ```
 */
export type ToolDecision = ProceedDecision | ReplaceDecision | DenyDecision | AskDecision;

/**
 * End an LLM call without calling the provider; `text` is the model's answer.
 *
 * @example
 * ```ts
 * import { definePlugin } from "@bub/core";
 * import type { FinishDecision } from "@bub/core";
 * const offline = definePlugin({
 *   name: "offline",
 *   beforeLlmCall: (): FinishDecision => ({ action: "finish", text: "The model is offline." }),
 * });
 * ```
 */
export interface FinishDecision {
  /** The action. */
  readonly action: "finish";
  /** The answer; empty when absent. */
  readonly text?: string | null;
}

/**
 * A plain LLM-call decision.
 *
 * @example
 * ```ts
 * import type { LlmDecision } from "@bub/core";
 * const decision: LlmDecision = { action: "finish", text: "done" };
 * ```
 */
export type LlmDecision = FinishDecision;

/**
 * Ends an LLM call without calling the provider.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BubFramework, definePlugin, LlmCallDecision, LlmCallRequest } from "@bub/core";
 * const bub = new BubFramework();
 * bub.register(definePlugin({ name: "stub", beforeLlmCall: () => LlmCallDecision.finish("stubbed") }));
 * const request = new LlmCallRequest({ runId: "r1", model: "m", messages: [] });
 * const [, decision] = await bub.getAgentHooks().beforeLlmCall(request, {});
 * assert.equal(decision?.text, "stubbed");
 * ```
 */
export class LlmCallDecision implements FinishDecision {
  /** The only action. */
  readonly action: "finish" = "finish";
  /** The text used as the model's answer. */
  readonly text: string;

  /**
   * Creates the object.
   *
   * @param text the answer
   */
  constructor(text: string = "") {
    this.text = text;
    Object.freeze(this);
  }

  /** Finish the call with `text` as the answer. */
  static finish(text: string): LlmCallDecision {
    return new LlmCallDecision(text);
  }
}

/**
 * What to do with a tool call. Frozen. `args`/`reason` mirror `arguments`/`message`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ToolCallDecision } from "@bub/core";
 * assert.deepEqual(ToolCallDecision.proceed({ cmd: "ls" }).args, { cmd: "ls" });
 * assert.equal(ToolCallDecision.replace("cached").result, "cached");
 * assert.equal(ToolCallDecision.deny("not here").reason, "not here");
 * assert.equal(ToolCallDecision.ask("needs a yes").action, "ask");
 * ```
 */
export class ToolCallDecision {
  /** `proceed`, `replace`, `deny` or `ask`. */
  readonly action: ToolCallAction;
  /** New arguments (proceed only). */
  readonly arguments: Record<string, unknown> | null;
  /** The same as {@link ToolCallDecision.arguments}. */
  readonly args: Record<string, unknown> | null;
  /** The replacement result (replace only). */
  readonly result: unknown;
  /** Why the call is denied or must be approved (deny and ask). */
  readonly message: string | null;
  /** The same as {@link ToolCallDecision.message}. */
  readonly reason: string | null;
  /** The pattern an "always" approval covers (ask only). */
  readonly match: string | null;

  /** Prefer the static constructors. */
  constructor(init: {
    action: ToolCallAction;
    arguments?: Record<string, unknown> | null;
    result?: unknown;
    message?: string | null;
    match?: string | null;
  }) {
    this.action = init.action;
    this.arguments = init.arguments ?? null;
    this.args = this.arguments;
    this.result = init.result ?? null;
    this.message = init.message ?? null;
    this.reason = this.message;
    this.match = init.match ?? null;
    Object.freeze(this);
  }

  /** Run the tool, optionally with new arguments. */
  static proceed(args: Record<string, unknown> | null = null): ToolCallDecision {
    return new ToolCallDecision({ action: "proceed", arguments: args });
  }

  /** Skip the tool and use `result` instead. */
  static replace(result: unknown): ToolCallDecision {
    return new ToolCallDecision({ action: "replace", result });
  }

  /** Skip the tool and fail the invocation with `message`. */
  static deny(message: string = ""): ToolCallDecision {
    return new ToolCallDecision({ action: "deny", message });
  }

  /** Suspend the turn until a person approves the call (`match`: what "always" covers). */
  static ask(reason: string = "", match: string | null = null): ToolCallDecision {
    return new ToolCallDecision({ action: "ask", message: reason, match });
  }
}

/**
 * What a {@link ToolCallDecision} does.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ToolCallDecision, type ToolCallAction } from "@bub/core";
 * const action: ToolCallAction = ToolCallDecision.ask("needs a yes").action;
 * assert.equal(action, "ask");
 * ```
 */
export type ToolCallAction = "proceed" | "replace" | "deny" | "ask";

/** True for an object with an `action` property: a decision, valid or not. */
export function isDecisionLike(value: unknown): value is { action: unknown } {
  return typeof value === "object" && value !== null && "action" in value;
}

function optionalString(value: unknown, field: string, action: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === "string") return value;
  throw new BubError(
    "invalid_input",
    `Invalid "${action}" decision: "${field}" must be a string, got ${typeof value}`,
  );
}

/**
 * The {@link ToolCallDecision} for a decision object of any origin (a class instance, a copy from
 * another package instance, or a plain {@link ToolDecision}).
 *
 * @throws {BubError} (`invalid_input`) for an unknown `action` or a field of the wrong type
 */
export function toToolCallDecision(value: ToolCallDecision | ToolDecision): ToolCallDecision {
  if (value instanceof ToolCallDecision) return value;
  if (!isDecisionLike(value)) {
    throw new BubError(
      "invalid_input",
      `Invalid tool call decision: expected an object with an "action", got ${
        value === null ? "null" : typeof value
      }`,
    );
  }
  const plain = value as unknown as Record<string, unknown>;
  switch (plain.action) {
    case "proceed": {
      const args = plain.args ?? plain.arguments ?? null;
      if (args !== null && (typeof args !== "object" || Array.isArray(args))) {
        throw new BubError(
          "invalid_input",
          `Invalid "proceed" decision: "args" must be an object, got ${
            Array.isArray(args) ? "an array" : typeof args
          }`,
        );
      }
      return ToolCallDecision.proceed(args as Record<string, unknown> | null);
    }
    case "replace":
      return ToolCallDecision.replace(plain.result);
    case "deny":
      return ToolCallDecision.deny(
        optionalString(plain.reason, "reason", "deny") ??
          optionalString(plain.message, "message", "deny") ?? "",
      );
    case "ask":
      return ToolCallDecision.ask(
        optionalString(plain.reason, "reason", "ask") ??
          optionalString(plain.message, "message", "ask") ?? "",
        optionalString(plain.match, "match", "ask"),
      );
    default:
      throw new BubError(
        "invalid_input",
        `Unknown tool call decision action ${
          JSON.stringify(plain.action)
        }: expected "proceed", "replace", "deny" or "ask"`,
      );
  }
}

/**
 * The {@link LlmCallDecision} for a decision object of any origin (a class instance or a plain
 * {@link LlmDecision}).
 *
 * @throws {BubError} (`invalid_input`) for an unknown `action` or a `text` that is not a string
 */
export function toLlmCallDecision(value: LlmCallDecision | LlmDecision): LlmCallDecision {
  if (value instanceof LlmCallDecision) return value;
  const action = isDecisionLike(value) ? value.action : undefined;
  if (action !== "finish") {
    throw new BubError(
      "invalid_input",
      `Unknown LLM call decision action ${JSON.stringify(action)}: expected "finish"`,
    );
  }
  return LlmCallDecision.finish(
    optionalString((value as unknown as Record<string, unknown>).text, "text", "finish") ?? "",
  );
}
