/**
 * `bub install`, `bub uninstall` and `bub update`: plugins in Bub's plugin project
 * (`<BUB_HOME>/plugins`, run by npm) and their entries in the `plugins:` list of config.yml. Each
 * command is all or nothing: package.json, package-lock.json and config.yml are read first, and on
 * any failure (npm's, a plugin that does not load, or the command stopped by a signal) they are
 * put back byte for byte and npm brings `node_modules` back to them.
 *
 * @module
 */
import { realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";
import type { FrameworkOptions, KernelFramework } from "../kernel/framework.ts";
import { BubError } from "../kernel/errors.ts";
import { packageRefOf } from "../_internal/plugin_packages.ts";
import type { CliOutput } from "./cli_io.ts";
import { runNpm } from "./plugin_install_npm.ts";
import {
  ensurePluginProject,
  filesChanged,
  installedVersion,
  packageSource,
  pluginProjectDir,
  projectDependencies,
  restoreFiles,
  snapshotFiles,
  writeFileAtomic,
} from "./plugin_install_project.ts";
import { addPluginEntries, readConfigText, removePluginEntries } from "./plugin_install_config.ts";
import { parsePluginSpec } from "./plugin_install_spec.ts";

/**
 * Options of the plugin commands.
 *
 * @example
 * ```ts
 * import type { PluginCommandOptions } from "./plugin_install.ts";
 * const options: PluginCommandOptions = { cwd: "/srv/app", signal: AbortSignal.timeout(600_000) };
 * ```
 */
export interface PluginCommandOptions {
  /** Where relative paths given to `install` resolve (default: the current directory). */
  readonly cwd?: string;
  /** Stops npm. */
  readonly signal?: AbortSignal;
}

function projectOf(framework: KernelFramework): string {
  return pluginProjectDir(framework.home);
}

/** The configured `plugins:` entries that are strings. */
function configuredEntries(framework: KernelFramework): string[] {
  const list = framework.config.plugins;
  return Array.isArray(list) ? list.filter((item): item is string => typeof item === "string") : [];
}

/**
 * Runs `work` so that a failure leaves the project's manifest, lockfile and the config file as
 * they were, and `node_modules` as the manifest says (npm re-installs from the restored files).
 */
async function allOrNothing<T>(
  framework: KernelFramework,
  work: () => Promise<T>,
): Promise<T> {
  const project = projectOf(framework);
  ensurePluginProject(project);
  const manifests = snapshotFiles([
    join(project, "package.json"),
    join(project, "package-lock.json"),
  ]);
  const config = snapshotFiles([framework.configFile]);
  try {
    return await work();
  } catch (error) {
    const resync = filesChanged(manifests);
    restoreFiles(config);
    restoreFiles(manifests);
    try {
      // npm also ran when the manifests did not change (a plugin that failed to load after an
      // install of an already-listed range): bring node_modules back in every case.
      // Not stopped by the command's signal: once started, putting things back runs to its end.
      await runNpm(["install"], { cwd: project });
      restoreFiles(manifests);
    } catch (restoreError) {
      if (resync) {
        throw new BubError(
          "unknown",
          `${(error as Error).message}; putting ${project} back failed too: ${
            (restoreError as Error).message
          }`,
          {},
          { cause: error },
        );
      }
    }
    throw error;
  }
}

/** Loads `entries` into a fresh framework of the same kind, strictly: throws when one fails. */
async function verifyLoads(framework: KernelFramework, entries: readonly string[]): Promise<void> {
  if (entries.length === 0) return;
  const Framework = framework.constructor as new (options: FrameworkOptions) => KernelFramework;
  const probe = new Framework({
    workspace: framework.workspace,
    configFile: framework.configFile,
    home: framework.home,
    loadDotenv: false,
  });
  await probe.loadHooks({ plugins: entries, strict: true });
}

function writeConfig(path: string, text: string): void {
  writeFileAtomic(path, text, 0o600);
}

/** The dependency name npm gave the local package at `path` (a `file:` dependency). */
function pathDependency(project: string, path: string): string {
  const real = (value: string) => {
    try {
      return realpathSync(value);
    } catch {
      return resolve(value);
    }
  };
  const target = real(path);
  for (const [name, range] of Object.entries(projectDependencies(project))) {
    if (range.startsWith("file:") && real(resolve(project, range.slice(5))) === target) return name;
  }
  throw new BubError("unknown", `Cannot find the package npm installed from ${path}`);
}

/**
 * `bub install <spec>…`: installs the packages with npm, checks that each loads as a Bub plugin,
 * then adds their entries to `plugins:` (a package name, or `jsr:@scope/name`).
 *
 * @throws {BubError} when a spec is invalid, npm fails or a plugin does not load; nothing changed
 */
export async function installCommand(
  framework: KernelFramework,
  inputs: readonly string[],
  output: CliOutput,
  options: PluginCommandOptions = {},
): Promise<void> {
  const specs = inputs.map((input) => parsePluginSpec(input, options.cwd ?? process.cwd()));
  const project = projectOf(framework);
  const installed = await allOrNothing(framework, async () => {
    await runNpm(["install", ...specs.map((spec) => spec.installArg)], {
      cwd: project,
      signal: options.signal,
    });
    const found = specs.map((spec) => {
      const name = spec.name ?? pathDependency(project, spec.installArg);
      return { name, entry: spec.entry ?? name };
    });
    try {
      await verifyLoads(framework, found.map((item) => item.entry));
    } catch (error) {
      throw new BubError(
        BubError.isInstance(error) ? error.kind : "config",
        `Cannot install ${inputs.join(" ")}: ${(error as Error).message}`,
        {},
        { cause: error },
      );
    }
    const text = readConfigText(framework.configFile);
    const next = await addPluginEntries(
      text,
      found.map((item) => item.entry),
      framework.configFile,
    );
    if (next !== text) writeConfig(framework.configFile, next);
    return found;
  });
  const deps = projectDependencies(project);
  for (const { name, entry } of installed) {
    const version = installedVersion(project, name) ?? "?";
    output.out(`Installed ${name}@${version} (${packageSource(deps[name], name)}) as "${entry}"\n`);
  }
  output.out(`Plugins are listed in ${framework.configFile}\n`);
}

/** The installed package `input` names: a dependency name, else the package its specifier names. */
function packageNameOf(project: string, input: string): string | null {
  if (input in projectDependencies(project)) return input;
  return packageRefOf(input)?.name ?? null;
}

/**
 * `bub uninstall <name>…`: removes the packages from the plugin project and every `plugins:`
 * entry naming them (or equal to the argument: a plugin listed in the config only).
 *
 * @throws {BubError} (`not_found`) when an argument is neither installed nor listed
 */
export async function uninstallCommand(
  framework: KernelFramework,
  inputs: readonly string[],
  output: CliOutput,
  options: PluginCommandOptions = {},
): Promise<void> {
  const project = projectOf(framework);
  const deps = projectDependencies(project);
  const names = inputs.map((input) => packageNameOf(project, input));
  const entries = configuredEntries(framework);
  const picks = (entry: string) =>
    inputs.includes(entry) || names.includes(packageRefOf(entry)?.name ?? null);
  inputs.forEach((input, index) => {
    const name = names[index] ?? null;
    const listed = entries.some((entry) =>
      entry === input || (name !== null && packageRefOf(entry)?.name === name)
    );
    if (!listed && (name === null || !(name in deps))) {
      throw new BubError(
        "not_found",
        `Cannot uninstall "${input}": it is neither installed in ${project} nor listed in ` +
          `plugins of ${framework.configFile}`,
      );
    }
  });
  const installed = names.filter((name): name is string => name !== null && name in deps);
  const versions = new Map(installed.map((name) => [name, installedVersion(project, name)]));
  const removed = await allOrNothing(framework, async () => {
    if (installed.length > 0) {
      await runNpm(["uninstall", ...installed], { cwd: project, signal: options.signal });
    }
    const result = await removePluginEntries(
      readConfigText(framework.configFile),
      picks,
      framework.configFile,
    );
    if (result.removed.length > 0) writeConfig(framework.configFile, result.text);
    return result.removed;
  });
  for (const name of installed) output.out(`Uninstalled ${name}@${versions.get(name) ?? "?"}\n`);
  for (const entry of removed) {
    output.out(`Removed "${entry}" from plugins in ${framework.configFile}\n`);
  }
}

/**
 * `bub update [name]`: updates one installed plugin, or all, within the ranges in the plugin
 * project's package.json, checks that the configured ones still load, and prints
 * `<name>: <old> -> <new>` for each (or `(up to date)`).
 *
 * @throws {BubError} (`not_found`) when `name` is not installed; npm's error when it fails
 */
export async function updateCommand(
  framework: KernelFramework,
  input: string | undefined,
  output: CliOutput,
  options: PluginCommandOptions = {},
): Promise<void> {
  const project = projectOf(framework);
  const deps = projectDependencies(project);
  const name = input === undefined ? undefined : packageNameOf(project, input);
  if (input !== undefined && (name == null || !(name in deps))) {
    throw new BubError("not_found", `Cannot update "${input}": it is not installed in ${project}`);
  }
  const names = name ? [name] : Object.keys(deps).sort();
  if (names.length === 0) {
    output.out(`No plugins are installed in ${project}\n`);
    return;
  }
  const before = new Map(names.map((item) => [item, installedVersion(project, item)]));
  const after = await allOrNothing(framework, async () => {
    await runNpm(["update", ...(name ? [name] : [])], { cwd: project, signal: options.signal });
    const now = new Map(names.map((item) => [item, installedVersion(project, item)]));
    const changed = new Set(names.filter((item) => now.get(item) !== before.get(item)));
    await verifyLoads(
      framework,
      configuredEntries(framework).filter((entry) => changed.has(packageRefOf(entry)?.name ?? "")),
    );
    return now;
  });
  for (const item of names) {
    const [old, now] = [before.get(item) ?? "?", after.get(item) ?? "?"];
    output.out(old === now ? `${item}: ${now} (up to date)\n` : `${item}: ${old} -> ${now}\n`);
  }
}
