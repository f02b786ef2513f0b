/**
 * The texts of the `bash`, `bash.output` and `bash.kill` tools (spec/builtin.md §6.7.1–§6.7.3 with
 * the seed-era changes of §14.5), so the tool layer stays thin.
 *
 * @module
 */
import { setImmediate } from "node:timers";
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

/**
 * Waits for the shell process to exit, the timeout, or the abort, whichever comes first. The
 * clock starts when the process has started (the caller awaited the start). Only time in which
 * the exit could have been seen counts: when the timer fires, pending I/O runs once more (an exit
 * that happened meanwhile is seen first), and a timer that fired late (a busy event loop: on a
 * loaded machine the exit of a finished command waited there behind the timer) arms a shorter
 * one, until one fires on time.
 */
function _waitExit(
  shell: ManagedShell,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<"exited" | "timeout" | "aborted"> {
  if (signal?.aborted) return Promise.resolve("aborted");
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let settled = false;
    const arm = (delay: number): void => {
      const due = Date.now() + delay;
      timer = setTimeout(() => {
        setImmediate(() =>
          setImmediate(() => {
            if (settled) return;
            if (Date.now() - due <= Math.max(LATE_MS, delay / 4)) finish("timeout");
            else arm(Math.min(delay, RECHECK_MS));
          })
        );
      }, delay);
    };
    const abort = () => finish("aborted");
    signal?.addEventListener("abort", abort, { once: true });
    shell.process.wait().then(() => finish("exited"), () => finish("exited"));
    arm(ms);
    function finish(outcome: "exited" | "timeout" | "aborted"): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", abort);
      resolve(outcome);
    }
  });
}

/** A timer later than this (or a quarter of its delay) fired on a busy event loop. */
const LATE_MS = 100;
/** The delay of the timer armed after a late one, at most. */
const RECHECK_MS = 1000;
