/**
 * The root `bub` command (also `framework.createCliApp()`): a `commander` program with the global
 * `--workspace` option, to which plugins add commands through `registerCliCommands({ app })`.
 *
 * @module
 */
export { type CliApp, type CliHost, createCliApp } from "../kernel/cli_app.ts";
