/**
 * The {@link ProcessDriver} over `Deno.Command`: children start `detached` (a new process group)
 * and groups are signalled with `Deno.kill(-pgid, signal)`.
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

/** True when the running runtime offers `Deno.Command`. */
export function denoCommandAvailable(): boolean {
  const deno = (globalThis as { Deno?: { Command?: unknown } }).Deno;
  return typeof deno?.Command === "function";
}

/**
 * Creates the `Deno.Command` driver. Only usable on Deno.
 *
 * @example
 * ```ts
 * import { createDenoDriver } from "./deno_driver.ts";
 * const child = await createDenoDriver().spawn({ file: "true", args: [], cwd: null, env: null });
 * console.assert((await child.exited) === 0);
 * ```
 */
export function createDenoDriver(): ProcessDriver {
  if (!denoCommandAvailable()) {
    throw new TypeError(
      "Cannot create the Deno process driver: Deno.Command is not available here",
    );
  }
  return { name: "deno", spawn: _spawn, signalGroup: _signalGroup };
}

function _spawn(request: DriverSpawnRequest): Promise<DriverChild> {
  try {
    return Promise.resolve(_start(request));
  } catch (error) {
    return Promise.reject(error);
  }
}

function _start(request: DriverSpawnRequest): DriverChild {
  const child = new Deno.Command(request.file, {
    args: request.args,
    ...(request.cwd === null ? {} : { cwd: request.cwd }),
    env: toolEnvironment(request),
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    detached: true,
  }).spawn();
  let writer: WritableStreamDefaultWriter<Uint8Array> | null = null;
  let stdinClosed = false;
  const exited = child.status.then((status) => status.code);
  return {
    pid: child.pid,
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

function _signalGroup(pgid: number, signal: GroupSignal): SignalOutcome {
  try {
    Deno.kill(-pgid, signal as Deno.Signal);
    return "sent";
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return "gone";
    if (error instanceof Deno.errors.PermissionDenied) return "denied";
    throw error;
  }
}
