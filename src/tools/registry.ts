/**
 * The tool registry: runtime names (which may contain dots) to tools, plus name resolution that
 * accepts model-facing aliases case-insensitively.
 *
 * @module
 */
import { modelToolName, type Tool } from "./tool.ts";

/**
 * Options of {@link ToolRegistry.resolveToolNames}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineTool } from "@bub/core";
 * import { type ResolveToolNamesOptions, ToolRegistry } from "@bub/core/tools";
 * const registry = new ToolRegistry([
 *   defineTool({ name: "fs.read", handler: () => "" }),
 *   defineTool({ name: "bash", handler: () => "" }),
 * ]);
 * const options: ResolveToolNamesOptions = { exclude: ["bash"] };
 * assert.deepEqual(registry.resolveToolNames(null, options), ["fs.read"]);
 * ```
 */
export interface ResolveToolNamesOptions {
  /** Names (runtime or model-facing, any case) removed from the result. */
  exclude?: Iterable<string> | null;
}

function casefold(text: string): string {
  return text.toLowerCase().replaceAll("ß", "ss");
}

/**
 * Tools by runtime name. Registering a tool with a taken name replaces the older one.
 *
 * @example Register and resolve
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineTool } from "@bub/core";
 * import { ToolRegistry } from "@bub/core/tools";
 * const registry = new ToolRegistry();
 * registry.register(defineTool({ name: "fs.read", handler: () => "" }));
 * assert.ok(registry.resolveToolName(" FS_READ ") === "fs.read");
 * ```
 */
export class ToolRegistry implements Iterable<Tool> {
  #own = new Map<string, Tool>();
  #sources: (() => Iterable<Tool>)[] = [];
  #index: Map<string, string> | null = null;
  /** Own tools merged with the sources' answers, reused while those answers are the same objects. */
  #merged: Map<string, Tool> | null = null;
  #mergedFrom: Iterable<Tool>[] = [];
  /** {@link listShared}'s array, or null until asked again after a change. */
  #list: readonly Tool[] | null = null;

  /**
   * Creates a registry.
   *
   * @param tools tools to register, in order
   */
  constructor(tools: Iterable<Tool> = []) {
    for (const tool of tools) this.register(tool);
  }

  /** Stores `tool` under its name (replacing a same-named tool) and returns it. */
  register(tool: Tool): Tool {
    if (
      typeof tool !== "object" || tool === null || typeof tool.name !== "string" ||
      typeof tool.run !== "function"
    ) {
      throw new TypeError(
        `Cannot register tool: expected a Tool from defineTool(), got ${typeof tool}`,
      );
    }
    this.#own.set(tool.name, tool);
    this.#changed();
    return tool;
  }

  /**
   * Adds a live source of tools (e.g. the tools of registered plugins), read on every lookup. A
   * source's tool replaces a registered tool of the same name; later sources win.
   */
  addSource(source: () => Iterable<Tool>): void {
    this.#sources.push(source);
    this.#changed();
  }

  #changed(): void {
    this.#index = null;
    this.#merged = null;
    this.#list = null;
  }

  /**
   * Own tools merged with every source's, by name. Rebuilt only when a source answers with a new
   * object (the plugin manager answers with one array per registration version).
   */
  get #tools(): Map<string, Tool> {
    const sources = this.#sources;
    if (sources.length === 0) return this.#own;
    // Asked on every lookup (several per step): the sources' answers compared without an array.
    const merged = this.#merged;
    const last = this.#mergedFrom;
    let i = 0;
    let answer: Iterable<Tool> | null = null;
    if (merged !== null) {
      for (; i < sources.length; i++) {
        answer = sources[i]!();
        if (answer !== last[i]) break;
      }
      if (i === sources.length) return merged;
    }
    const from = last.slice(0, i);
    if (answer !== null) from.push(answer);
    for (let j = from.length; j < sources.length; j++) from.push(sources[j]!());
    const all = new Map(this.#own);
    for (const tools of from) for (const tool of tools) all.set(tool.name, tool);
    this.#mergedFrom = from;
    this.#index = null;
    this.#list = null;
    return this.#merged = all;
  }

  /**
   * Every tool, in registration order, as one frozen array shared until the tools change (the
   * agent's steps compare it with the last step's instead of copying {@link list}).
   */
  listShared(): readonly Tool[] {
    const tools = this.#tools; // may drop a stale list
    return this.#list ??= Object.freeze([...tools.values()]);
  }

  /** Removes the registered tool named `name`; true when one was removed. */
  delete(name: string): boolean {
    this.#changed();
    return this.#own.delete(name);
  }

  /** The tool with runtime name `name`, or undefined. */
  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  /** True when a tool has runtime name `name`. */
  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /** Every tool, in registration order (a replaced tool keeps its first position). */
  list(): Tool[] {
    return [...this.#tools.values()];
  }

  /** Every runtime name, in registration order. */
  names(): string[] {
    return [...this.#tools.keys()];
  }

  /** The number of tools. */
  get size(): number {
    return this.#tools.size;
  }

  /** Iterates the tools in registration order. */
  [Symbol.iterator](): Iterator<Tool> {
    return this.#tools.values();
  }

  #lookup(): Map<string, string> {
    const tools = this.#tools; // may drop a stale index
    if (this.#index) return this.#index;
    const names = [...tools.keys()];
    const index = new Map<string, string>();
    for (const name of names) index.set(casefold(modelToolName(name)), name);
    for (const name of names) index.set(casefold(name), name);
    return this.#index = index;
  }

  /**
   * The runtime name for `name` (trimmed, case-insensitive; a runtime name or a model-facing
   * alias, runtime names winning on collision), or null when empty or unknown.
   */
  resolveToolName(name: string): string | null {
    const key = casefold(String(name).trim());
    if (key === "") return null;
    return this.#lookup().get(key) ?? null;
  }

  /**
   * Resolves an allowed-tool list: `null` means every registered tool. Names in `exclude` are
   * removed. The result is deduplicated and keeps the input (or registration) order.
   *
   * @throws {RangeError} `unknown tool name(s): '<a>', '<b>'` (trimmed originals, sorted) when
   *   any name in `names` or `exclude` is unknown
   */
  resolveToolNames(
    names: Iterable<string> | null,
    options: ResolveToolNamesOptions = {},
  ): string[] {
    const unknown = new Set<string>();
    const resolveAll = (list: Iterable<string>): string[] => {
      const out: string[] = [];
      for (const name of list) {
        const resolved = this.resolveToolName(name);
        if (resolved === null) unknown.add(String(name).trim());
        else if (!out.includes(resolved)) out.push(resolved);
      }
      return out;
    };
    const excluded = new Set(resolveAll(options.exclude ?? []));
    const selected = names === null ? this.names() : resolveAll(names);
    if (unknown.size > 0) {
      const listed = [...unknown].sort().map((name) => `'${name}'`).join(", ");
      throw new RangeError(`unknown tool name(s): ${listed}`);
    }
    return selected.filter((name) => !excluded.has(name));
  }
}

let defaultRegistry: ToolRegistry | undefined;

/**
 * The process-wide default registry, created on first use.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defaultToolRegistry } from "@bub/core/tools";
 * assert.equal(defaultToolRegistry(), defaultToolRegistry()); // one per process
 * ```
 */
export function defaultToolRegistry(): ToolRegistry {
  return defaultRegistry ??= new ToolRegistry();
}
