/**
 * The texts of the `bash`, `bash.output` and `bash.kill` tools (spec/builtin.md §6.7.1–§6.7.3 with
 * the seed-era changes of §14.5), so the tool layer stays thin.
 *
 * @module
 */
import { type ManagedShell, OUTPUT_CUT_NOTE } from "./managed_shell.ts";
import type { ShellRunOptions, ShellStartOptions } from "./shell_options.ts";
import { ShellCommandError } from "./shell_command_error.ts";

export { ShellCommandError } from "./shell_command_error.ts";

/** What {@link runShellCommand} needs of a shell manager: starting a shell. */
export interface ShellStarter {
  /** Starts a shell. */
  start(options: ShellStartOptions): Promise<ManagedShell>;
}

/** Implements `ShellManager.run`. */
export async function runShellCommand(
  manager: ShellStarter,
  options: ShellRunOptions,
): Promise<string> {
  const timeoutSeconds = options.timeoutSeconds ?? 30;
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds < 0) {
    throw new RangeError(
      `Cannot run shell command: timeoutSeconds must be a non-negative number, got ${timeoutSeconds}`,
    );
  }
  const shell = await manager.start(options);
  if (options.background) {
    return `Shell started, shell_id: ${shell.id}\n` +
      "Retrieve the output with bash_output or terminate it with bash_kill.";
  }
  const outcome = await _waitExit(shell, timeoutSeconds * 1000, options.signal);
  if (outcome === "timeout") {
    return `command timed out after ${timeoutSeconds} seconds; continuing in background\n` +
      `shell_id: ${shell.id}`;
  }
  if (outcome === "aborted") {
    await shell.terminate();
    throw options.signal!.reason;
  }
  const code = await shell.waitClosed();
  const output = shell.output.trim() || "(no output)";
  if (code !== 0) throw new ShellCommandError(code ?? -1, output);
  return output;
}

/** The `bash.output` text for a slice of `shell`'s output. */
export function formatOutput(shell: ManagedShell, offset: number, limit: number | null): string {
  const slice = shell.outputSlice(
    Math.max(Math.trunc(offset) || 0, 0),
    limit === null ? null : Math.max(0, Math.trunc(limit) || 0),
  );
  let chunk = slice.text.trimEnd();
  if (shell.outputCut && shell.finalized) chunk = `${chunk}\n${OUTPUT_CUT_NOTE}`.trimStart();
  return `id: ${shell.id}\nstatus: ${shell.status}\nexit_code: ${shell.returncode ?? "null"}\n` +
    `next_offset: ${slice.next}\noutput:\n${chunk || "(no output)"}`;
}

/** The `bash.kill` text after `shell` was terminated. */
export function formatKill(shell: ManagedShell): string {
  return `id: ${shell.id}\nstatus: ${shell.status}\nexit_code: ${shell.returncode ?? "null"}`;
}

/** Waits for the shell process to exit, the timeout, or the abort, whichever comes first. */
function _waitExit(
  shell: ManagedShell,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<"exited" | "timeout" | "aborted"> {
  if (signal?.aborted) return Promise.resolve("aborted");
  return new Promise((resolve) => {
    const timer = setTimeout(() => finish("timeout"), ms);
    const abort = () => finish("aborted");
    signal?.addEventListener("abort", abort, { once: true });
    shell.process.wait().then(() => finish("exited"), () => finish("exited"));
    function finish(outcome: "exited" | "timeout" | "aborted"): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", abort);
      resolve(outcome);
    }
  });
}
