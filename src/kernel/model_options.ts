/**
 * Model choices that channels and adapters may present.
 *
 * @module
 */

/**
 * One selectable model.
 *
 * @example
 * ```ts
 * import type { ModelChoice } from "@bub/core/kernel";
 * const choice: ModelChoice = { id: "openai:gpt-4o", name: "GPT-4o", description: "default" };
 * ```
 */
export interface ModelChoice {
  /** `provider:model`. */
  readonly id: string;
  /** A display name. */
  readonly name?: string | null;
  /** A description. */
  readonly description?: string | null;
  /** Free-form data. */
  readonly meta?: Record<string, unknown> | null;
}

/**
 * What `provideModelOptions` returns and `getModelOptions` merges.
 *
 * @example
 * ```ts
 * import { definePlugin } from "@bub/core";
 * import type { ModelOptions } from "@bub/core/kernel";
 * const models = definePlugin({
 *   name: "models",
 *   provideModelOptions: (): ModelOptions => ({
 *     models: [{ id: "openai:gpt-4o" }, { id: "anthropic:claude-sonnet-4" }],
 *     currentModel: "openai:gpt-4o",
 *   }),
 * });
 * ```
 */
export interface ModelOptions {
  /** The choices, in priority order. */
  readonly models: ModelChoice[];
  /** The current model id, or null. */
  readonly currentModel: string | null;
}

/** True for an object shaped like {@link ModelOptions}. */
export function isModelOptions(value: unknown): value is ModelOptions {
  return typeof value === "object" && value !== null &&
    Array.isArray((value as { models?: unknown }).models);
}
