/**
 * The shell machinery a `ShellManager` imports when its first shell starts (or a tool reads
 * one): managed shells, their output buffers and the tool texts. One module, so that it is one
 * import (and one file of the npm build).
 *
 * @module
 */
export { OutputBuffer } from "./_output_buffer.ts";
export { ManagedShell } from "./managed_shell.ts";
export { formatKill, formatOutput, runShellCommand } from "./_shell_tool_text.ts";
