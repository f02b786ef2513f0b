/**
 * The definitions of `bub install`, `bub uninstall`, `bub update` and `bub plugins` (their bodies
 * are imported when they run), and which configured plugins each loads first.
 *
 * @module
 */
import type { Command } from "commander";
import type { KernelFramework, LoadHooksOptions } from "../kernel/framework.ts";
import type { CliOutput } from "./cli_io.ts";

/**
 * How the CLI loads the config's plugins before `command`: `install`, `uninstall` and `update`
 * load none (the plugin to replace may be the one that is broken; they load what they install
 * themselves), `plugins` loads every one and records failures instead of stopping, and every
 * other command loads them as usual (`{}`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pluginCommandLoading } from "./plugin_commands.ts";
 * assert.deepEqual(pluginCommandLoading("install", {}), { plugins: [] });
 * assert.deepEqual(pluginCommandLoading("run", {}), {});
 * ```
 */
export function pluginCommandLoading(
  command: string | undefined,
  config: Record<string, unknown>,
): LoadHooksOptions {
  if (command === "install" || command === "uninstall" || command === "update") {
    return { plugins: [] };
  }
  if (command === "plugins") {
    const list = Array.isArray(config.plugins) ? config.plugins : [];
    return { plugins: list.filter((item) => typeof item === "string"), strict: false };
  }
  return {};
}

/** The signal stopping the current command (set by the CLI's `main()`), if any. */
function cliSignal(framework: KernelFramework): AbortSignal | undefined {
  return (framework as { cliSignal?: AbortSignal | null }).cliSignal ?? undefined;
}

/** Adds the plugin commands to `app`. */
export function registerPluginCommands(
  app: Command,
  framework: KernelFramework,
  output: CliOutput,
): void {
  app.command("install")
    .description(
      "Install plugins into <BUB_HOME>/plugins and list them in config.yml " +
        "(npm: name, name@range, npm:name@range; JSR: jsr:@scope/name[@range]; a folder or .tgz)",
    )
    .argument("<specs...>", "what to install")
    .action(async (specs: string[]) => {
      const { installCommand } = await import("./plugin_install.ts");
      await installCommand(framework, specs, output, { signal: cliSignal(framework) });
    });
  app.command("uninstall")
    .description("Remove plugins from <BUB_HOME>/plugins and from plugins: in config.yml")
    .argument("<names...>", "package names (or jsr:@scope/name, or a plugins: entry)")
    .action(async (names: string[]) => {
      const { uninstallCommand } = await import("./plugin_install.ts");
      await uninstallCommand(framework, names, output, { signal: cliSignal(framework) });
    });
  app.command("update")
    .description("Update one installed plugin, or all, within their ranges (prints old -> new)")
    .argument("[name]", "the package to update (default: all)")
    .action(async (name: string | undefined) => {
      const { updateCommand } = await import("./plugin_install.ts");
      await updateCommand(framework, name, output, { signal: cliSignal(framework) });
    });
  app.command("plugins")
    .description("List the configured plugins: version, source, load status and hooks")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }) => {
      const { pluginsCommand } = await import("./plugin_list.ts");
      pluginsCommand(framework, output, options);
    });
}
