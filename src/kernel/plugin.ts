/**
 * Plugins, implementation priority bands and the plugin registry.
 *
 * @module
 */
import { BubError } from "./errors.ts";
import { type HookName, type HookSignatures, isHookName } from "./hook_specs.ts";
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

function implOptions(fn: unknown): HookImplOptions | undefined {
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

/**
 * One registered implementation.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { definePlugin, hookimpl } from "@bub/core";
 * import { KernelFramework, type HookImplementation } from "@bub/core/kernel";
 * const kernel = new KernelFramework({ loadDotenv: false });
 * kernel.register(definePlugin({ name: "p", runModel: hookimpl(() => "ok", { trylast: true }) }));
 * const [impl]: readonly HookImplementation[] = kernel.hookRuntime.implementations("runModel");
 * assert.equal(impl?.pluginName, "p");
 * assert.equal(impl?.trylast, true);
 * ```
 */
export interface HookImplementation {
  /** The hook it implements. */
  readonly hook: string;
  /** The plugin's registered name. */
  readonly pluginName: string;
  /** The plugin object (the `this` of the call). */
  readonly plugin: object;
  /** The implementation. */
  readonly fn: (args: Record<string, unknown>) => unknown;
  /** In the first band. */
  readonly tryfirst: boolean;
  /** In the last band. */
  readonly trylast: boolean;
  /** Fails closed: `failClosed` on the implementation or `policy: true` on the plugin. */
  readonly failClosed: boolean;
}

/**
 * Whether a plugin loaded, for diagnostics.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { KernelFramework, type PluginStatus } from "@bub/core/kernel";
 * const kernel = new KernelFramework({ loadDotenv: false });
 * await kernel.loadHooks({ plugins: [() => ({ name: "ok" })] });
 * const statuses: PluginStatus[] = [...kernel.pluginStatus.values()];
 * assert.ok(statuses.every((status) => status.isSuccess));
 * ```
 */
export interface PluginStatus {
  /** True when it registered. */
  readonly isSuccess: boolean;
  /** The error text otherwise. */
  readonly detail?: string;
}

function collectImplementations(plugin: object): Map<string, { fn: unknown; key: string }> {
  const found = new Map<string, { fn: unknown; key: string }>();
  const seen = new Set<string>();
  for (
    let obj: object | null = plugin;
    obj && obj !== Object.prototype;
    obj = Object.getPrototypeOf(obj)
  ) {
    for (const key of Object.getOwnPropertyNames(obj)) {
      if (seen.has(key) || key === "constructor" || key === "name" || key === "policy") continue;
      seen.add(key);
      const descriptor = Object.getOwnPropertyDescriptor(obj, key);
      if (!descriptor || !("value" in descriptor) || typeof descriptor.value !== "function") {
        continue;
      }
      const options = implOptions(descriptor.value);
      const hook = options?.specname ?? key;
      if (!isHookName(hook) && options === undefined) continue;
      if (found.has(hook)) {
        throw new TypeError(`Cannot register plugin: hook "${hook}" is implemented twice`);
      }
      found.set(hook, { fn: descriptor.value, key });
    }
  }
  return found;
}

/**
 * The registry of plugins and their implementations, kept in Bub's exact priority order: `trylast`
 * implementations go to the front of a raw list, `tryfirst` ones to its end, normal ones just
 * before the trailing `tryfirst` block; the priority order is the raw list reversed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { definePlugin } from "@bub/core";
 * import { PluginManager } from "@bub/core/kernel";
 * const plugins = new PluginManager();
 * plugins.register(definePlugin({ name: "echo", runModel: () => "echo" }));
 * assert.ok(plugins.has("echo"));
 * assert.equal(plugins.implementations("runModel").length, 1);
 * ```
 */
export class PluginManager {
  #plugins = new Map<string, object>();
  #raw = new Map<string, HookImplementation[]>();
  #ordered = new Map<string, readonly HookImplementation[]>();
  #version = 0;
  #tools: readonly PluginTool[] = [];
  #toolsVersion = -1;

  /** Every plugin, in registration order. */
  get plugins(): ReadonlyMap<string, object> {
    return this.#plugins;
  }

  /** Changes whenever a plugin is registered. */
  get version(): number {
    return this.#version;
  }

  /**
   * Registers `plugin` under `name` (default `plugin.name`).
   *
   * @throws {TypeError} when the plugin is not an object or has no name
   * @throws {BubError} (`invalid_input`) when the name or the object is already registered
   */
  register(plugin: object, name?: string): string {
    if (typeof plugin !== "object" || plugin === null || Array.isArray(plugin)) {
      throw new TypeError(
        `Cannot register plugin${
          typeof name === "string" ? ` "${name}"` : ""
        }: expected an object with hook implementations, got ${
          plugin === null ? "null" : Array.isArray(plugin) ? "an array" : typeof plugin
        }`,
      );
    }
    const pluginName = name ?? (plugin as { name?: unknown }).name;
    if (typeof pluginName !== "string" || pluginName.trim() === "") {
      throw new TypeError(
        `Cannot register plugin: it needs a non-empty string name, got ${
          JSON.stringify(pluginName)
        }`,
      );
    }
    if (this.#plugins.has(pluginName)) {
      throw new BubError(
        "invalid_input",
        `Cannot register plugin: name "${pluginName}" is already registered`,
      );
    }
    for (const [existing, obj] of this.#plugins) {
      if (obj === plugin) {
        throw new BubError(
          "invalid_input",
          `Cannot register plugin "${pluginName}": the same object is already registered as "${existing}"`,
        );
      }
    }
    pluginTools(plugin, pluginName);
    const impls = collectImplementations(plugin);
    const policy = (plugin as { policy?: unknown }).policy === true;
    this.#plugins.set(pluginName, plugin);
    for (const [hook, { fn }] of impls) {
      const options = implOptions(fn) ?? {};
      const impl: HookImplementation = {
        hook,
        pluginName,
        plugin,
        fn: fn as HookImplementation["fn"],
        tryfirst: options.tryfirst === true,
        trylast: options.trylast === true,
        failClosed: policy || options.failClosed === true,
      };
      const raw = this.#raw.get(hook) ?? [];
      if (impl.trylast) raw.unshift(impl);
      else if (impl.tryfirst) raw.push(impl);
      else {
        let index = raw.length;
        while (index > 0 && raw[index - 1]!.tryfirst) index--;
        raw.splice(index, 0, impl);
      }
      this.#raw.set(hook, raw);
      this.#ordered.set(hook, Object.freeze([...raw].reverse()));
    }
    this.#version++;
    return pluginName;
  }

  /** True when a plugin of that name is registered. */
  has(name: string): boolean {
    return this.#plugins.has(name);
  }

  /** Every tool the registered plugins declare, in registration order (one array per version). */
  tools(): readonly PluginTool[] {
    if (this.#toolsVersion !== this.#version) {
      this.#tools = [...this.#plugins].flatMap(([name, plugin]) => [...pluginTools(plugin, name)]);
      this.#toolsVersion = this.#version;
    }
    return this.#tools;
  }

  /** The plugin registered under `name`, or undefined. */
  get(name: string): object | undefined {
    return this.#plugins.get(name);
  }

  /** The implementations of `hook` in priority order (highest first). */
  implementations(hook: string): readonly HookImplementation[] {
    return this.#ordered.get(hook) ?? EMPTY;
  }

  /** Hook name → plugin names in raw (lowest priority first) order; hooks sorted, empty omitted. */
  hookReport(): Record<string, string[]> {
    const report: Record<string, string[]> = {};
    for (const hook of [...this.#raw.keys()].sort()) {
      const raw = this.#raw.get(hook)!;
      if (raw.length > 0) report[hook] = raw.map((impl) => impl.pluginName);
    }
    return report;
  }
}

const EMPTY: readonly HookImplementation[] = Object.freeze([]);
