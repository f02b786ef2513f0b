/**
 * The plugin registry: each plugin's hook implementations, kept in Bub's exact priority order,
 * and their tools.
 *
 * @module
 */
import { BubError } from "./errors.ts";
import { isHookName } from "./hook_specs.ts";
import { implOptions, type PluginTool, pluginTools } from "./plugin.ts";

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
  /** The module specifier it was loaded from (an entry of the config's `plugins:` list), if any. */
  readonly source?: string;
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
