/**
 * The root `bub` command: a `commander` program with the global `--workspace` option, to which
 * plugins add commands through `registerCliCommands({ app })`.
 *
 * @module
 */
import { resolve } from "node:path";
import { Command } from "../_vendor/commander.js";
import type { HookRuntime } from "./hook_runtime.ts";

/**
 * The CLI application type (a `commander` `Command`).
 *
 * @example
 * ```ts
 * import { definePlugin } from "@bub/core";
 * import type { CliApp } from "@bub/core/kernel";
 * const hello = definePlugin({
 *   name: "hello",
 *   registerCliCommands: ({ app }) => {
 *     (app as CliApp).command("hello").description("Say hello").action(() => console.log("hello"));
 *   },
 * });
 * ```
 */
export type CliApp = Command;

/**
 * What {@link createCliApp} needs of the framework.
 *
 * @example
 * ```ts
 * import { KernelFramework, type CliHost } from "@bub/core/kernel";
 * import { createCliApp } from "@bub/core/cli";
 * const host: CliHost = new KernelFramework({ loadDotenv: false });
 * const app = createCliApp(host);
 * ```
 */
export interface CliHost {
  /** The workspace; `--workspace` sets it. */
  workspace: string;
  /** Dispatches `registerCliCommands`. */
  readonly hookRuntime: HookRuntime;
}

/**
 * Creates the root `bub` program: `--workspace/-w <path>` sets `host.workspace` (resolved, no `~`
 * expansion) before any command runs; every `registerCliCommands` implementation adds commands;
 * with none, a `help` command prints `No CLI command loaded.`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { KernelFramework } from "@bub/core/kernel";
 * import { createCliApp } from "@bub/core/cli";
 * const app = createCliApp(new KernelFramework({ loadDotenv: false }));
 * assert.equal(app.name(), "bub");
 * ```
 */
export function createCliApp(host: CliHost): CliApp {
  const app = new Command("bub")
    .description("Batteries-included, hook-first AI framework")
    .option("-w, --workspace <path>", "the workspace directory (default: the current directory)")
    .showHelpAfterError();
  app.hook("preAction", (thisCommand) => {
    const workspace = thisCommand.opts().workspace;
    if (typeof workspace === "string" && workspace !== "") host.workspace = resolve(workspace);
  });
  host.hookRuntime.call("registerCliCommands", { app });
  if (app.commands.length === 0) {
    app.command("help").description("Show help").action(() => {
      const out = app.configureOutput().writeOut ?? ((text: string) => console.log(text.trimEnd()));
      out("No CLI command loaded.\n");
    });
  }
  return app;
}
