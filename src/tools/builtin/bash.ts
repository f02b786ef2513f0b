/**
 * The `bash`, `bash.output` and `bash.kill` tools (spec/builtin.md §6.7.1–§6.7.3 with the seed-era
 * changes of §14.5): commands run through the turn's {@link Environment} in shells owned by a
 * {@link ShellManager}.
 *
 * @module
 */
import { s as z } from "../../_internal/schema.ts";
import { environmentFromState } from "../../environment/from_state.ts";
import type { ShellManager } from "../../environment/shell_manager.ts";
import { defineTool, type Tool } from "../tool.ts";
import { withArgumentAliases } from "../_argument_aliases.ts";

/** Default foreground timeout of `bash`, in seconds. */
export const DEFAULT_COMMAND_TIMEOUT_SECONDS = 30;

function bashParams() {
  return z.object({
    command: z.string().describe("The shell command line."),
    cwd: z.string().nullable().optional().describe(
      "Working directory (relative paths resolve against the workspace). Default: the workspace.",
    ),
    timeout_seconds: z.int().min(0).default(DEFAULT_COMMAND_TIMEOUT_SECONDS).describe(
      "Foreground only: after this many seconds the command continues in the background.",
    ),
    background: z.boolean().default(false).describe(
      "Start the command in the background and return its shell id at once.",
    ),
  });
}

function outputParams() {
  return z.object({
    shell_id: z.string().describe("The id returned when the shell started (bash-xxxxxxxx)."),
    offset: z.int().default(0).describe("First character of the output to return."),
    limit: z.int().nullable().optional().describe("Maximum number of characters to return."),
  });
}

function killParams() {
  return z.object({
    shell_id: z.string().describe("The id returned when the shell started (bash-xxxxxxxx)."),
  });
}

/**
 * Newer argument names current Python Bub uses, accepted beside the seed's documented ones
 * (the model sees only the documented name): `cmd` for `command`.
 */
export const BASH_ARGUMENT_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  cmd: "command",
});

/**
 * The `bash` tool (`command` may also be given as `cmd`, see {@link BASH_ARGUMENT_ALIASES}). Foreground commands return their trimmed combined output (or `(no output)`),
 * fail with `command exited with code <rc>` on a non-zero exit, and move to the background when
 * `timeout_seconds` passes (the text then carries the shell id). Cancelling the turn terminates
 * the shell. The command sees the model's call id as `BUB_TOOL_CALL_ID` (its idempotency key).
 */
export function bashTool(shells: ShellManager): Tool {
  return defineTool({
    name: "bash",
    description: "Run a shell command in the workspace and return its output. " +
      "With background=true the command keeps running (timeout_seconds is ignored); read its " +
      "output with bash_output and stop it with bash_kill. A foreground command that exceeds " +
      "timeout_seconds keeps running in the background and its shell id is returned.",
    parameters: withArgumentAliases(bashParams(), BASH_ARGUMENT_ALIASES),
    context: true,
    handler: (args, ctx) => {
      const environment = environmentFromState(ctx.state);
      const cwd = args.cwd ? environment.resolvePath(args.cwd) : null;
      const session = ctx.state.session_id;
      return shells.run({
        command: args.command,
        environment,
        cwd,
        sessionId: session === null || session === undefined ? null : String(session),
        timeoutSeconds: args.timeout_seconds,
        background: args.background,
        signal: ctx.signal,
        // The call's idempotency key (see `ToolContext.callId`).
        env: ctx.callId ? { BUB_TOOL_CALL_ID: ctx.callId } : null,
      });
    },
  });
}

/**
 * The `bash.output` tool: status, exit code and a slice of a shell's output. A shell that has
 * exited is released by this call, so a later call for the same id fails with `unknown shell id`.
 */
export function bashOutputTool(shells: ShellManager): Tool {
  return defineTool({
    name: "bash.output",
    description: "Read the output of a background shell. Pass next_offset from the previous " +
      "call as offset to read only new output; limit caps the characters returned.",
    parameters: outputParams(),
    handler: ({ shell_id, offset, limit }) =>
      shells.readOutput(shell_id, { offset, limit: limit ?? null }),
  });
}

/** The `bash.kill` tool: terminates a shell (or releases a finished one) and reports its exit code. */
export function bashKillTool(shells: ShellManager): Tool {
  return defineTool({
    name: "bash.kill",
    description: "Terminate a background shell and report its exit code.",
    parameters: killParams(),
    handler: ({ shell_id }) => shells.kill(shell_id),
  });
}

/** The three shell tools, in catalogue order. */
export function bashTools(shells: ShellManager): Tool[] {
  return [bashTool(shells), bashOutputTool(shells), bashKillTool(shells)];
}
