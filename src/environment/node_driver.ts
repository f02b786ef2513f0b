/**
 * The {@link ProcessDriver} over `node:child_process` (Node, Bun, and Deno's Node compatibility):
 * children start with `detached: true` (a new process group) and groups are signalled with
 * `process.kill(-pgid, signal)`.
 *
 * @module
 */
import type { ChildProcess } from "node:child_process";
import { constants } from "node:os";
import process from "node:process";
import type { Readable } from "node:stream";
import type {
  DriverChild,
  DriverSpawnRequest,
  GroupSignal,
  ProcessDriver,
  SignalOutcome,
} from "./process_driver.ts";
import { toolEnvironment } from "./tool_env.ts";
import { lazyImport } from "../_internal/lazy.ts";

// `node:child_process` (with the net and stream internals it loads) is imported when the first
// process spawns, not when `@bub/core` is imported.
const childProcess = lazyImport(() => import("node:child_process"));

/**
 * Creates the `node:child_process` driver; it works on Node, Bun and Deno.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createNodeDriver } from "./node_driver.ts";
 * const child = await createNodeDriver().spawn({ file: "true", args: [], cwd: null, env: null });
 * assert.ok((await child.exited) === 0);
 * ```
 */
export function createNodeDriver(): ProcessDriver {
  return { name: "node", spawn: _spawn, signalGroup: _signalGroup };
}

async function _spawn(request: DriverSpawnRequest): Promise<DriverChild> {
  const { spawn } = await childProcess();
  const child = spawn(request.file, request.args, {
    ...(request.cwd === null ? {} : { cwd: request.cwd }),
    env: toolEnvironment(request),
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  const exited = new Promise<number>((resolve) => {
    child.once("exit", (code, signal) => resolve(code ?? _signalExitCode(signal)));
  });
  return await new Promise<DriverChild>((resolve, reject) => {
    child.once("error", reject);
    child.once("spawn", () => {
      child.off("error", reject);
      // Later errors (e.g. a failed kill) must not crash the host process.
      child.on("error", () => {});
      resolve(_wrap(child, exited));
    });
  });
}

function _wrap(child: ChildProcess, exited: Promise<number>): DriverChild {
  const stdin = child.stdin!;
  stdin.on("error", () => {});
  return {
    pid: child.pid!,
    stdout: _toWeb(child.stdout!),
    stderr: _toWeb(child.stderr!),
    exited,
    writeStdin(data: Uint8Array): Promise<void> {
      if (stdin.writableEnded) {
        return Promise.reject(new Error("Cannot write to stdin: it is already closed"));
      }
      return new Promise((resolve, reject) => {
        stdin.write(data, (error) => (error ? reject(error) : resolve()));
      });
    },
    closeStdin(): void {
      if (!stdin.writableEnded) stdin.end();
    },
  };
}

/** Adapts a Node readable to a web stream with backpressure (pause when the queue is full). */
function _toWeb(readable: Readable): ReadableStream<Uint8Array> {
  let finished = false;
  return new ReadableStream<Uint8Array>({
    start(controller): void {
      readable.pause();
      readable.on("data", (chunk: Uint8Array) => {
        if (finished) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) readable.pause();
      });
      readable.once("end", () => {
        if (finished) return;
        finished = true;
        controller.close();
      });
      readable.once("error", (error) => {
        if (finished) return;
        finished = true;
        controller.error(error);
      });
    },
    pull(): void {
      readable.resume();
    },
    cancel(): void {
      finished = true;
      readable.destroy();
    },
  }, { highWaterMark: 16 });
}

function _signalExitCode(signal: NodeJS.Signals | null): number {
  const number = signal === null ? undefined : constants.signals[signal];
  return 128 + (number ?? 0);
}

function _signalGroup(pgid: number, signal: GroupSignal): SignalOutcome {
  try {
    process.kill(-pgid, signal);
    return "sent";
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ESRCH") return "gone";
    if (code === "EPERM") return "denied";
    throw error;
  }
}
