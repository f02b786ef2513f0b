/**
 * Private: the waits of a managed shell: polling until a process group is gone, waiting a while
 * for a promise to settle, and telling a late timer (a busy event loop) from an on-time one.
 *
 * @module
 */
import { setImmediate } from "node:timers";
import type { Process } from "../kernel/environment.ts";

function _sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls until the group of `proc` is gone or `ms` passed. */
export async function pollGone(proc: Process, pollMs: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (proc.isRunning()) {
    const left = deadline - Date.now();
    if (left <= 0) return;
    await _sleep(Math.min(pollMs, left));
  }
}

/** True when a wait of `ms` begun at `started` ended well after it should have. */
export function lagged(started: number, ms: number): boolean {
  return Date.now() - started > ms * 1.5;
}

/** Waits up to `ms` (or, with `afterIo`, one I/O poll) for `promise` to settle; never rejects. */
export async function settledWithin(
  promise: Promise<unknown>,
  ms: number,
  afterIo = false,
): Promise<"fulfilled" | "rejected" | "timeout"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    if (afterIo) setImmediate(() => setImmediate(() => resolve("timeout")));
    else timer = setTimeout(() => resolve("timeout"), ms);
  });
  try {
    return await Promise.race([
      promise.then(() => "fulfilled" as const, () => "rejected" as const),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
