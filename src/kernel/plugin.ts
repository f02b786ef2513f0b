/**
 * Plugins: their shape (`definePlugin`), their tools, and the priority bands of their hook
 * implementations (`hookimpl`). The registry that orders them is `plugin_manager.ts`.
 *
 * @module
 */
import { BubError } from "./errors.ts";
import type { HookName, HookSignatures } from "./hook_specs.ts";
import type { StatefulHooks } from "./plugin_state.ts";
import type { TurnState } from "./turn.ts";

/**
 * Priority options of {@link hookimpl}.
 *
 * @example
 * ```ts
 * import { definePlugin, hookimpl, type HookImplOptions } from "@bub/core";
 * const first: HookImplOptions = { tryfirst: true };
 * const plugin = definePlugin({ name: "audit", saveState: hookimpl(() => {}, first) });
 * ```
 */
export interface HookImplOptions {
  /** Run before every normal implementation. */
  tryfirst?: boolean;
  /** Run after every normal implementation. */
  trylast?: boolean;
  /** Implement this hook instead of the property's own name. */
  specname?: string;
  /**
   * Fail closed (a policy): when this `beforeToolCall` throws or returns a malformed decision,
   * the tool call is denied with the error message; when this `beforeLlmCall` does, the LLM call
   * finishes with it. Default false: the error is logged and the call proceeds.
   */
  failClosed?: boolean;
}

const IMPL_OPTIONS: unique symbol = Symbol.for("bub.hookimpl");

/**
 * Marks `fn` as a hook implementation with a priority band (and, with `failClosed`, as a
 * policy). Functions under a hook's name are implementations without it; a function under any
 * other name becomes one only when marked. Typed as `(args: A) => R` so that the hook's argument
 * type flows into the callback inside {@link definePlugin} (TypeScript 5 and 7).
 *
 * @example Run last among `afterToolCall` implementations
 * ```ts
 * import { definePlugin, hookimpl } from "@bub/core";
 * const audit = definePlugin({
 *   name: "audit",
 *   afterToolCall: hookimpl(({ call }) => console.log(call.tool), { trylast: true }),
 * });
 * ```
 */
export function hookimpl<A, R>(
  fn: (args: A) => R,
  options: HookImplOptions = {},
): (args: A) => R {
  if (typeof fn !== "function") {
    throw new TypeError(`Cannot mark hook implementation: expected a function, got ${typeof fn}`);
  }
  if (options.tryfirst && options.trylast) {
    throw new TypeError("Cannot mark hook implementation: tryfirst and trylast exclude each other");
  }
  Object.defineProperty(fn, IMPL_OPTIONS, { value: { ...options }, configurable: true });
  return fn;
}

/** The priority options `hookimpl` put on `fn`, if any. */
export function implOptions(fn: unknown): HookImplOptions | undefined {
  return (fn as Record<symbol, HookImplOptions | undefined>)[IMPL_OPTIONS];
}

/**
 * The hook implementations a plugin may carry, each optional.
 *
 * @example
 * ```ts
 * import type { PluginHooks } from "@bub/core";
 * const hooks: PluginHooks = { runModel: ({ prompt }) => `echo: ${prompt}` };
 * ```
 */
export type PluginHooks = { [K in HookName]?: HookSignatures[K] };

/**
 * What the kernel knows of a tool a plugin declares: a `Tool` from `defineTool()`. The builtin
 * plugin offers every registered plugin's tools to the model and to comma commands.
 *
 * @example
 * ```ts
 * import { definePlugin } from "@bub/core";
 * import type { PluginTool } from "@bub/core/kernel";
 * import { defineTool } from "@bub/core/tools";
 * const clock: PluginTool = defineTool({
 *   name: "clock.now",
 *   description: "The current time",
 *   handler: () => new Date().toISOString(),
 * });
 * const plugin = definePlugin({ name: "clock", tools: [clock] });
 * ```
 */
export interface PluginTool {
  /** The tool's runtime name. */
  readonly name: string;
  /** Validates arguments and runs the tool. */
  readonly run: (...args: never[]) => unknown;
}

/**
 * A plugin: a name plus hook implementations, and optionally tools.
 *
 * @example
 * ```ts
 * import { contentOf, type Plugin } from "@bub/core";
 * const plugin: Plugin = {
 *   name: "greeter",
 *   buildPrompt: ({ message }) => `Greet: ${contentOf(message)}`,
 * };
 * ```
 */
export interface Plugin extends PluginHooks {
  /** The unique plugin name. */
  readonly name: string;
  /**
   * A policy plugin fails closed: when its `beforeToolCall` throws (or returns a malformed
   * decision) the tool call is denied with the error message, and when its `beforeLlmCall` does,
   * the LLM call finishes with it. Default false: errors are logged and the call proceeds.
   */
  readonly policy?: boolean;
  /**
   * Tools this plugin adds (built with `defineTool`), offered while the plugin is registered. A
   * plugin tool replaces a builtin or earlier plugin's tool of the same name (later plugins win).
   */
  readonly tools?: readonly PluginTool[];
}

/** The tools `plugin` declares, checked; `[]` when it declares none. */
export function pluginTools(plugin: object, pluginName: string): readonly PluginTool[] {
  const tools = (plugin as { tools?: unknown }).tools;
  // A class plugin may have a method of that name; only an array is a declaration.
  if (tools === undefined || tools === null || typeof tools === "function") return [];
  if (!Array.isArray(tools)) {
    throw new BubError(
      "invalid_input",
      `Cannot register plugin "${pluginName}": tools must be an array of defineTool() results, got ${typeof tools}`,
    );
  }
  tools.forEach((tool: unknown, index) => {
    const t = tool as Record<string, unknown> | null;
    const ok = typeof t === "object" && t !== null && typeof t.name === "string" &&
      typeof t.description === "string" && typeof t.parameters === "object" &&
      typeof t.run === "function" && typeof t.withName === "function";
    if (!ok) {
      throw new BubError(
        "invalid_input",
        `Cannot register plugin "${pluginName}": tools[${index}] is not a tool (build it with defineTool())`,
      );
    }
  });
  return tools as PluginTool[];
}

/**
 * Helps type inference for a plugin object; returns it unchanged.
 *
 * @example
 * ```ts
 * import { contentOf, definePlugin } from "@bub/core";
 * const echo = definePlugin({
 *   name: "echo",
 *   runModel: ({ prompt }) => String(prompt),
 *   buildPrompt: ({ message }) => `[echo] ${contentOf(message)}`,
 * });
 * ```
 */
export function definePlugin<P extends Plugin>(plugin: P): P;
/**
 * `definePlugin<S>(plugin)` types the `state` argument of every hook as `S` (an interface
 * extending `TurnState` with the plugin's own keys): the way for a plugin published on JSR,
 * where `declare module` is rejected. A lens the author vouches for, not a runtime check;
 * returns the plugin unchanged.
 *
 * @example A plugin with its own state keys
 * ```ts
 * import { definePlugin, type TurnState } from "@bub/core";
 * interface BudgetState extends TurnState {
 *   "acme.budget"?: number;
 * }
 * const budget = definePlugin<BudgetState>({
 *   name: "acme-budget",
 *   loadState: () => ({ "acme.budget": 3 }),
 *   systemPrompt: ({ state }) => `Budget: ${(state["acme.budget"] ?? 0).toFixed(0)}`,
 * });
 * ```
 */
export function definePlugin<S extends TurnState>(
  plugin: Omit<Plugin, HookName> & StatefulHooks<S>,
): Plugin;
export function definePlugin(plugin: Plugin): Plugin {
  return plugin;
}
