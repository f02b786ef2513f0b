/**
 * The {@link ProcessDriver} over `Deno.Command`: each child starts in a new session and process
 * group and groups are signalled with `Deno.kill(-pgid, signal)`.
 *
 * The new group comes from the `setsid` program where the host has one: the child is spawned
 * plainly as `setsid <command>`, and `setsid` makes itself the session and group leader and
 * executes the command in the same process (same pid). `Deno.Command`'s own `detached: true`
 * calls `setsid()` in a pre-exec hook, and any pre-exec hook makes Rust's standard library
 * fork() the whole runtime instead of using `posix_spawn`: 5-15 ms per spawn on the event-loop
 * thread, growing with the heap (measured with `bench/shell.bench.ts`), which made a comma
 * command's turn 5× a raw spawn and 1500 concurrent commands run into their timeouts. Without
 * `setsid` on the host (macOS), children start with `detached: true` as before.
 *
 * Only this file and `node_driver.ts` touch runtime process APIs.
 *
 * @module
 */
import type {
  DriverChild,
  DriverSpawnRequest,
  GroupSignal,
  ProcessDriver,
  SignalOutcome,
} from "./process_driver.ts";
import { toolEnvironment } from "./tool_env.ts";
import { findExecutable } from "../_internal/find_executable.ts";
import { runtimeKey } from "../_internal/runtime.ts";

/** Options of {@link createDenoDriver}. */
export interface DenoDriverOptions {
  /**
   * The `setsid` program children start through, or null to start them with `Deno.Command`'s
   * `detached: true` (slower: see the module doc). Default: `setsid` on the host's `PATH`,
   * looked up at the first spawn, else null.
   */
  setsid?: string | null;
}

/** True when the running runtime offers `Deno.Command`. */
export function denoCommandAvailable(): boolean {
  return runtimeKey() === "deno";
}

/**
 * Creates the `Deno.Command` driver. Only usable on Deno.
 *
 * A child started through `setsid` leads its group from the moment `setsid` runs, a moment
 * after the spawn returns; until then (and until its exit is seen) a signal to the group that
 * finds no group goes to the child itself and then to the group once more (formed meanwhile), so
 * `signalGroup` reaches the child and whatever it started at any time.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createDenoDriver } from "./deno_driver.ts";
 * const child = await createDenoDriver().spawn({ file: "true", args: [], cwd: null, env: null });
 * assert.ok((await child.exited) === 0);
 * ```
 */
export function createDenoDriver(options: DenoDriverOptions = {}): ProcessDriver {
  if (!denoCommandAvailable()) {
    throw new TypeError(
      "Cannot create the Deno process driver: Deno.Command is not available here",
    );
  }
  let setsid = options.setsid;
  /** Children started through `setsid` whose exit was not seen yet. */
  const forming = new Set<number>();
  const found = new FoundExecutables();
  return {
    name: "deno",
    spawn(request: DriverSpawnRequest): Promise<DriverChild> {
      try {
        setsid ??= setsid === null ? null : findExecutable("setsid", {
          path: Deno.env.get("PATH") ?? null,
        });
        return Promise.resolve(_start(request, setsid, forming, found));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    signalGroup(pgid: number, signal: GroupSignal): SignalOutcome {
      const outcome = _kill(-pgid, signal);
      if (outcome !== "gone" || !forming.has(pgid)) return outcome;
      // No group yet: `setsid` has not run (or the exit is not seen yet): the child itself,
      // then the group again, which `setsid` may have formed (and the command forked into)
      // between the two calls.
      const direct = _kill(pgid, signal);
      _kill(-pgid, signal);
      return direct;
    },
  };
}

function _start(
  request: DriverSpawnRequest,
  setsid: string | null | undefined,
  forming: Set<number>,
  found: FoundExecutables,
): DriverChild {
  // `Deno.env.toObject()` is one call; reading `process.env` is one per variable (~3× slower).
  const env = toolEnvironment(request, Deno.env.toObject());
  // Through `setsid` only when the command exists there, so that a missing or unusable command
  // still fails with Deno's own error (`setsid` would exit with 127 instead).
  const wrapped = typeof setsid === "string" && !request.file.startsWith("-") &&
    found.has(request.file, env.PATH ?? null, request.cwd);
  const child = new Deno.Command(wrapped ? setsid! : request.file, {
    args: wrapped ? [request.file, ...request.args] : request.args,
    ...(request.cwd === null ? {} : { cwd: request.cwd }),
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    detached: !wrapped,
  }).spawn();
  const pid = child.pid;
  if (wrapped) forming.add(pid);
  let writer: WritableStreamDefaultWriter<Uint8Array> | null = null;
  let stdinClosed = false;
  const exited = child.status.then((status) => {
    forming.delete(pid);
    return status.code;
  });
  return {
    pid,
    stdout: child.stdout,
    stderr: child.stderr,
    exited,
    async writeStdin(data: Uint8Array): Promise<void> {
      if (stdinClosed) throw new Error("Cannot write to stdin: it is already closed");
      writer ??= child.stdin.getWriter();
      await writer.ready;
      await writer.write(data);
    },
    closeStdin(): void {
      if (stdinClosed) return;
      stdinClosed = true;
      const closing = writer === null ? child.stdin.close() : writer.close();
      closing.catch(() => {});
    },
  };
}

/**
 * Commands found on a `PATH` (or at a path), remembered: a `PATH` lookup stats every entry and
 * costs ~0.3 ms on Deno, more than the rest of a spawn's preparation. A command removed after it
 * was found makes `setsid` exit with 127 and say so on stderr.
 */
class FoundExecutables {
  #found = new Set<string>();

  has(file: string, path: string | null, cwd: string | null): boolean {
    // A relative path depends on the directory: looked up each time.
    if (!file.startsWith("/") && file.includes("/")) {
      return findExecutable(file, { path, cwd }) !== null;
    }
    const key = file.startsWith("/") ? file : `${path}\0${file}`;
    if (this.#found.has(key)) return true;
    if (findExecutable(file, { path, cwd }) === null) return false;
    if (this.#found.size >= 256) this.#found.clear();
    this.#found.add(key);
    return true;
  }
}

function _kill(target: number, signal: GroupSignal): SignalOutcome {
  try {
    Deno.kill(target, signal as Deno.Signal);
    return "sent";
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return "gone";
    if (error instanceof Deno.errors.PermissionDenied) return "denied";
    throw error;
  }
}
