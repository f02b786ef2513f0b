import { createRequire } from "node:module";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expandHome } from "../_internal/home.ts";
import { kernelLogger } from "./_log.ts";
import { BubError } from "./errors.ts";
import type { PluginManager, PluginStatus } from "./plugin_manager.ts";
import { runtimeKey } from "../_internal/runtime.ts";
import { ensureCoreLink } from "./_core_link.ts";
import { installedPluginFile } from "../_internal/plugin_packages.ts";

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
  /**
   * Bub's home: packages installed in `<home>/plugins` (by `bub install`) are found there, and
   * `<home>/node_modules/@bub/core` makes `@bub/core` importable by them and by plugin files
   * kept in the home (see `_core_link.ts`).
   */
  readonly home?: string;
}

/** A plugin, a plugin factory or class, or a module specifier. */
type LoadSource = string | object;

const isDeno = runtimeKey() === "deno";

/**
 * Where a plugin specifier is imported from: relative and `~` paths resolve against the config
 * file's folder. A package (a bare name, `npm:name@range`, `jsr:@scope/name`) installed in Bub's
 * plugin project (`<home>/plugins`, where `bub install` puts it; `jsr:@scope/name` is
 * `@jsr/scope__name` there) loads from there. Otherwise Deno imports `npm:` and `jsr:` specifiers
 * itself; elsewhere a `jsr:` specifier is an error and an `npm:` one becomes a bare name, and bare
 * names resolve from the workspace first (the project's own dependencies), then from the config
 * file's folder, then from this package.
 */
export function pluginImportTarget(
  specifier: string,
  configFile: string,
  workspace: string,
  home?: string,
): string {
  if (specifier.startsWith(".") || isAbsolute(specifier) || specifier.startsWith("~")) {
    return pathToFileURL(resolve(dirname(configFile), expandHome(specifier))).href;
  }
  if (/^(file|https?|data):/.test(specifier)) return specifier;
  const installed = home === undefined
    ? null
    : installedPluginFile(join(home, "plugins"), specifier);
  if (installed !== null) return pathToFileURL(installed).href;
  if (specifier.startsWith("jsr:")) {
    if (!isDeno) {
      throw new TypeError(
        `Cannot load plugin "${specifier}": it is not installed (run: bub install ${specifier})`,
      );
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

/**
 * `import(target)`, on Deno preparing what it did not: a module of a package in `node_modules`
 * that imports a file module outside it (the `@bub/core` link package does) fails there with
 * "Loading unprepared module: <url>" until that module has been imported once.
 */
async function importModule(target: string): Promise<Record<string, unknown>> {
  for (let attempt = 0;; attempt++) {
    try {
      return await import(target);
    } catch (error) {
      const unprepared = isDeno && attempt < 50
        ? /Loading unprepared module: (file:[^\s,]+)/.exec(errorText(error))?.[1]
        : undefined;
      if (unprepared === undefined) throw error;
      await import(unprepared);
    }
  }
}

/** Imports a plugin module and returns its default export (or its `plugin` export). */
export async function importPlugin(
  specifier: string,
  configFile: string,
  workspace: string,
  home?: string,
): Promise<unknown> {
  const module = await importModule(pluginImportTarget(specifier, configFile, workspace, home));
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
function resolvedLabel(
  specifier: string,
  configFile: string,
  workspace: string,
  home?: string,
): string {
  try {
    const target = pluginImportTarget(specifier, configFile, workspace, home);
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
  const loaded: { name: string; target: unknown; source?: string }[] = [];
  const { home } = framework;
  if (home !== undefined && sources.some((source) => typeof source === "string")) {
    try {
      ensureCoreLink(home);
    } catch (error) {
      kernelLogger.warn("Cannot link @bub/core for plugins in {home}: {error}", { home, error });
    }
  }
  for (const source of sources) {
    const name = label(source);
    try {
      if (typeof source === "string") {
        const target = await importPlugin(source, framework.configFile, framework.workspace, home);
        loaded.push({ name, target, source });
      } else loaded.push({ name, target: source });
    } catch (error) {
      if (strict) {
        const where = typeof source === "string"
          ? ` (${resolvedLabel(source, framework.configFile, framework.workspace, home)})`
          : "";
        throw new BubError(
          "config",
          `Cannot load plugin "${name}"${where}: ${firstLine(error)}`,
          { plugin: name, error: errorText(error) },
          { cause: error },
        );
      }
      kernelLogger.warn("Failed to load plugin '{name}': {error}", { name, error });
      framework.pluginStatus.set(name, {
        isSuccess: false,
        detail: errorText(error),
        ...(typeof source === "string" ? { source } : {}),
      });
    }
  }
  for (const { name, target, source } of loaded) {
    try {
      const plugin = isClass(target)
        ? new target(framework)
        : typeof target === "function"
        ? await target(framework)
        : target;
      const ownName = (plugin as { name?: unknown } | null)?.name;
      const pluginName = typeof ownName === "string" && ownName !== "" ? ownName : name;
      framework.pluginManager.register(plugin as object, pluginName);
      framework.pluginStatus.set(pluginName, { isSuccess: true, ...(source ? { source } : {}) });
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
      framework.pluginStatus.set(name, {
        isSuccess: false,
        detail: errorText(error),
        ...(source ? { source } : {}),
      });
    }
  }
}
