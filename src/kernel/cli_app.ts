/**
 * The types of the root `bub` command: a `commander` program to which plugins add commands
 * through `registerCliCommands({ app })`. The program itself is made by `createCliApp` of
 * `@bub/core/cli`, so that importing the kernel does not load `commander`.
 *
 * @module
 */
import type { Command } from "commander";
import type { HookRuntime } from "./hook_runtime.ts";

/** The CLI application type (a `commander` `Command`). */
export type CliApp = Command;

/** What `createCliApp` (of `@bub/core/cli`) needs of the framework. */
export interface CliHost {
  /** The workspace; `--workspace` sets it. */
  workspace: string;
  /** Dispatches `registerCliCommands`. */
  readonly hookRuntime: HookRuntime;
}
