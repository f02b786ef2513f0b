/**
 * The `bub` command line. Run as the main module it is the `bub` program
 * (`deno run -A jsr:@bub/core/cli run "hi"`); imported, it only exports {@link main}.
 *
 * @example Running a command in-process
 * ```ts ignore
 * import { main } from "@bub/core/cli";
 *
 * const code = await main(["hooks"]);
 * ```
 *
 * @module
 */
import { isProgramEntry, runProgram } from "./_program.ts";

export { type CliApp, type CliHost, createCliApp } from "./cli_app.ts";
export { main, type MainOptions } from "./main.ts";

if (isProgramEntry(import.meta.url, (import.meta as { main?: boolean }).main)) void runProgram();
