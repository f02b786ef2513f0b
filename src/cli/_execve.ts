/**
 * Private: replacing the running process image with `execve(2)` on each runtime: Node's
 * `process.execve` (Node >= 22.15 / 23.11), libc's `execve` through `Deno.dlopen` on Deno (needs
 * `--allow-ffi`; `-A` grants it) and through `bun:ffi` on Bun. Used by the `bub` entry only, so
 * this runtime-specific code lives here rather than in `src/environment/`.
 *
 * @module
 */
import process from "node:process";
import { runtimeKey } from "../_internal/runtime.ts";

/** The libc names tried with `dlopen` (glibc, then the generic name, e.g. musl). */
const LIBC = ["libc.so.6", "libc.so"];

/** `execve(path, argv, envp)` over C strings; returns only when it failed. */
type RawExecve = (
  path: Uint8Array<ArrayBuffer>,
  argv: BigUint64Array<ArrayBuffer>,
  envp: BigUint64Array<ArrayBuffer>,
) => number;
/** A pointer to the start of a buffer. */
type PointerOf = (buffer: Uint8Array<ArrayBuffer>) => bigint;

interface BunFfi {
  dlopen(
    path: string,
    symbols: { execve: { args: string[]; returns: string } },
  ): { symbols: { execve: RawExecve } };
  ptr(buffer: Uint8Array): number;
}

/** A way to call `execve`, or the reason there is none. */
export type Execve =
  | {
    ok: true;
    execve: (file: string, argv: readonly string[], env: Record<string, string>) => Error;
  }
  | { ok: false; reason: string };

function nodeExecve(): Execve {
  const execve = (process as { execve?: (file: string, args: string[], env: object) => never })
    .execve;
  if (typeof execve !== "function") {
    return { ok: false, reason: `Node ${process.version} has no process.execve (Node >= 22.15)` };
  }
  return {
    ok: true,
    execve(file, argv, env) {
      try {
        execve.call(process, file, [...argv], env);
      } catch (error) {
        return error instanceof Error ? error : new Error(String(error));
      }
      return new Error("process.execve returned");
    },
  };
}

function openLibc<T>(open: (path: string) => T): T {
  let last: unknown;
  for (const path of LIBC) {
    try {
      return open(path);
    } catch (error) {
      last = error;
    }
  }
  throw last;
}

/** `execve` over a libc binding, with the C strings and pointer arrays it needs. */
function libcExecve(raw: RawExecve, pointerOf: PointerOf): Execve {
  return {
    ok: true,
    execve(file, argv, env) {
      const encoder = new TextEncoder();
      const keep: Uint8Array<ArrayBuffer>[] = []; // referenced until the call returns
      const cString = (text: string): Uint8Array<ArrayBuffer> => {
        const bytes = encoder.encode(`${text}\0`);
        keep.push(bytes);
        return bytes;
      };
      const array = (items: readonly string[]): BigUint64Array<ArrayBuffer> => {
        const pointers = new BigUint64Array(items.length + 1);
        items.forEach((item, index) => pointers[index] = pointerOf(cString(item)));
        return pointers;
      };
      const envp = Object.entries(env).map(([name, value]) => `${name}=${value}`);
      const status = raw(cString(file), array(argv), array(envp));
      return new Error(`libc execve returned ${status} (${keep.length} strings passed)`);
    },
  };
}

function denoExecve(): Execve {
  if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") {
    return { ok: false, reason: "Deno runs without --allow-ffi (run it with -A)" };
  }
  try {
    const lib = openLibc((path) =>
      Deno.dlopen(path, { execve: { parameters: ["buffer", "buffer", "buffer"], result: "i32" } })
    );
    return libcExecve(
      (path, argv, envp) => lib.symbols.execve(path, argv, envp),
      (buffer) => BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(buffer))),
    );
  } catch (error) {
    return { ok: false, reason: `cannot load libc's execve (${String(error)})` };
  }
}

async function bunExecve(): Promise<Execve> {
  try {
    const specifier = ["bun", "ffi"].join(":"); // not resolved by type checkers and bundlers
    const ffi = await import(specifier) as BunFfi;
    const lib = openLibc((path) =>
      ffi.dlopen(path, { execve: { args: ["ptr", "ptr", "ptr"], returns: "i32" } })
    );
    return libcExecve(lib.symbols.execve, (buffer) => BigInt(ffi.ptr(buffer)));
  } catch (error) {
    return { ok: false, reason: `cannot load libc's execve through bun:ffi (${String(error)})` };
  }
}

/**
 * The running runtime's `execve`: on success it never returns; it returns the error when the
 * call failed (the process then goes on unchanged).
 */
export async function runtimeExecve(): Promise<Execve> {
  switch (runtimeKey()) {
    case "deno":
      return denoExecve();
    case "bun":
      return await bunExecve();
    default:
      return nodeExecve();
  }
}
