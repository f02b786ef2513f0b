import { createRequire } from "node:module";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expandHome } from "../_internal/home.ts";
import { kernelLogger } from "./_log.ts";
import { BubError } from "./errors.ts";
import type { PluginManager, PluginStatus } from "./plugin_manager.ts";
import { runtimeKey } from "../_internal/runtime.ts";

/**
 * What plugin loading needs of the framework (a `KernelFramework` is one). Factories and
 * classes are called with the host itself, i.e. with the framework.
 */
export interface PluginLoadHost {
  /** The config file (relative specifiers resolve against its folder). */
  readonly configFile: string;
  /** The workspace (bare specifiers resolve from it first). */
  readonly workspace: string;
  /** The registry plugins are registered in. */
  readonly pluginManager: PluginManager;
  /** Load status per plugin name. */
  readonly pluginStatus: Map<string, PluginStatus>;
}

/** A plugin, a plugin factory or class, or a module specifier. */
type LoadSource = string | object;

const isDeno = runtimeKey() === "deno";

/**
 * Where a plugin specifier is imported from: relative and `~` paths resolve against the config
 * file's folder; `npm:` specifiers stay as they are on Deno and become bare names elsewhere; bare
 * package names resolve from the workspace first (the project's own dependencies), then from
 * this package.
 */
export function pluginImportTarget(
  specifier: string,
  configFile: string,
  workspace: string,
): string {
  if (specifier.startsWith(".") || isAbsolute(specifier) || specifier.startsWith("~")) {
    return pathToFileURL(resolve(dirname(configFile), expandHome(specifier))).href;
  }
  if (/^(file|https?|data):/.test(specifier)) return specifier;
  if (specifier.startsWith("jsr:")) {
    if (!isDeno) {
      throw new TypeError(`Cannot load plugin "${specifier}": jsr: specifiers need Deno`);
    }
    return specifier;
  }
  let bare = specifier;
  if (specifier.startsWith("npm:")) {
    if (isDeno) return specifier;
    bare = specifier.slice(4).replace(/^(@[^/]+\/[^@/]+|[^@/]+)@[^/]*/, "$1");
  }
  for (const base of [workspace, dirname(configFile)]) {
    try {
      return pathToFileURL(createRequire(join(base, "package.json")).resolve(bare)).href;
    } catch {
      // not installed there, or ESM-only without a require condition: fall through
    }
  }
  return bare;
}

/** Imports a plugin module and returns its default export (or its `plugin` export). */
export async function importPlugin(
  specifier: string,
  configFile: string,
  workspace: string,
): Promise<unknown> {
  const module = await import(pluginImportTarget(specifier, configFile, workspace));
  const value = module.default ?? module.plugin;
  if (value === undefined) {
    throw new TypeError(
      `Plugin module "${specifier}" has no default export (nor a "plugin" export)`,
    );
  }
  return value;
}

/** The `plugins:` list of the config file (module specifiers). */
export function configuredPlugins(config: Record<string, unknown>): string[] {
  const list = config.plugins;
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list) || list.some((item) => typeof item !== "string")) {
    throw new TypeError(
      `Invalid config: "plugins" must be a list of module specifiers, got ${JSON.stringify(list)}`,
    );
  }
  return list as string[];
}

function label(source: LoadSource): string {
  if (typeof source === "string") return source;
  const name = (source as { name?: unknown }).name;
  return typeof name === "string" && name !== "" ? name : "<anonymous>";
}

/** True for a `class` (which must be called with `new`). */
function isClass(value: unknown): value is new (host: PluginLoadHost) => unknown {
  return typeof value === "function" &&
    /^class\b/.test(Function.prototype.toString.call(value));
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The first non-empty line of the error text (loader errors may carry code frames). */
function firstLine(error: unknown): string {
  return errorText(error).split("\n").map((line) => line.trim()).find((line) => line) ?? "";
}

/** Where `specifier` resolves to, as a path when it is a file, for error messages. */
function resolvedLabel(specifier: string, configFile: string, workspace: string): string {
  try {
    const target = pluginImportTarget(specifier, configFile, workspace);
    return target.startsWith("file:") ? fileURLToPath(target) : target;
  } catch {
    return specifier;
  }
}

/**
 * Loads plugins in two phases: every module is imported first, then each target is
 * instantiated (a class is constructed, a function called, with the framework) and registered.
 * Failures are logged and recorded in `framework.pluginStatus`; the other plugins still load.
 * With `strict`, the first failure throws instead.
 *
 * @throws {BubError} (`config`) when `strict` and a plugin fails to load or initialize: one line
 *   naming the specifier, the resolved path and the loader's error
 */
export async function loadPlugins(
  framework: PluginLoadHost,
  sources: readonly LoadSource[],
  strict = false,
): Promise<void> {
  const loaded: { name: string; target: unknown }[] = [];
  for (const source of sources) {
    const name = label(source);
    try {
      const target = typeof source === "string"
        ? await importPlugin(source, framework.configFile, framework.workspace)
        : source;
      loaded.push({ name, target });
    } catch (error) {
      if (strict) {
        const where = typeof source === "string"
          ? ` (${resolvedLabel(source, framework.configFile, framework.workspace)})`
          : "";
        throw new BubError(
          "config",
          `Cannot load plugin "${name}"${where}: ${firstLine(error)}`,
          { plugin: name, error: errorText(error) },
          { cause: error },
        );
      }
      kernelLogger.warn("Failed to load plugin '{name}': {error}", { name, error });
      framework.pluginStatus.set(name, { isSuccess: false, detail: errorText(error) });
    }
  }
  for (const { name, target } of loaded) {
    try {
      const plugin = isClass(target)
        ? new target(framework)
        : typeof target === "function"
        ? await target(framework)
        : target;
      const ownName = (plugin as { name?: unknown } | null)?.name;
      const pluginName = typeof ownName === "string" && ownName !== "" ? ownName : name;
      framework.pluginManager.register(plugin as object, pluginName);
      framework.pluginStatus.set(pluginName, { isSuccess: true });
    } catch (error) {
      if (strict) {
        throw new BubError(
          "config",
          `Cannot initialize plugin "${name}": ${firstLine(error)}`,
          { plugin: name, error: errorText(error) },
          { cause: error },
        );
      }
      kernelLogger.warn("Failed to initialize plugin '{name}': {error}", { name, error });
      framework.pluginStatus.set(name, { isSuccess: false, detail: errorText(error) });
    }
  }
}
