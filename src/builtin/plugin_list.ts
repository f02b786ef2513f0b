/**
 * `bub plugins`: every entry of the config's `plugins:` list with its package version, where it
 * comes from (`npm`, `jsr`, `path` — installed by `bub install` — or `config-only`), whether it
 * loaded, and the hooks the loaded plugin implements (read from the framework's registry).
 *
 * @module
 */
import type { KernelFramework } from "../kernel/framework.ts";
import { packageRefOf } from "../_internal/plugin_packages.ts";
import type { CliOutput } from "./cli_io.ts";
import {
  installedVersion,
  packageSource,
  pluginProjectDir,
  projectDependencies,
} from "./plugin_install_project.ts";

/**
 * One configured plugin.
 *
 * @example
 * ```ts
 * import type { PluginRow } from "./plugin_list.ts";
 * const row: PluginRow = {
 *   entry: "greet", plugin: "greet", package: "greet", version: "1.1.0", source: "npm",
 *   loaded: true, error: null, hooks: ["runModel"],
 * };
 * ```
 */
export interface PluginRow {
  /** The `plugins:` entry. */
  readonly entry: string;
  /** The name the plugin registered under; null when it did not load. */
  readonly plugin: string | null;
  /** The package installed in the plugin project; null for `config-only`. */
  readonly package: string | null;
  /** That package's installed version. */
  readonly version: string | null;
  /** Where it comes from. */
  readonly source: "npm" | "jsr" | "path" | "config-only";
  /** True when it loaded and registered. */
  readonly loaded: boolean;
  /** The load error otherwise. */
  readonly error: string | null;
  /** The hooks it implements. */
  readonly hooks: readonly string[];
}

/** The rows of `bub plugins`, from the config's `plugins:` list and the framework's load status. */
export function pluginRows(framework: KernelFramework): PluginRow[] {
  const list = framework.config.plugins;
  const entries = Array.isArray(list)
    ? list.filter((item): item is string => typeof item === "string")
    : [];
  const project = pluginProjectDir(framework.home);
  const deps = projectDependencies(project);
  const report = Object.entries(framework.hookReport());
  return entries.map((entry) => {
    const status = [...framework.pluginStatus].find(([, value]) => value.source === entry);
    const loaded = status?.[1].isSuccess === true;
    const plugin = loaded ? status![0] : null;
    const name = packageRefOf(entry)?.name ?? null;
    const version = name === null ? null : installedVersion(project, name);
    return {
      entry,
      plugin,
      package: version === null ? null : name,
      version,
      source: version === null ? "config-only" : packageSource(deps[name!], name!),
      loaded,
      error: loaded ? null : status?.[1].detail ?? "not loaded",
      hooks: plugin === null
        ? []
        : report.filter(([, names]) => names.includes(plugin)).map(([hook]) => hook),
    };
  });
}

/** Prints {@link pluginRows}: one line each, or JSON with `json`. */
export function pluginsCommand(
  framework: KernelFramework,
  output: CliOutput,
  options: { json?: boolean } = {},
): void {
  const rows = pluginRows(framework);
  if (options.json) {
    output.out(JSON.stringify(rows, null, 2) + "\n");
    return;
  }
  if (rows.length === 0) {
    output.out(`(no plugins configured in ${framework.configFile})\n`);
    return;
  }
  for (const row of rows) {
    const state = row.loaded
      ? `loaded as "${row.plugin}"  hooks: ${row.hooks.join(", ") || "(none)"}`
      : `failed: ${row.error?.split("\n")[0]}`;
    output.out(`${row.entry}  ${row.version ?? "-"}  ${row.source}  ${state}\n`);
  }
}
