/**
 * Which JavaScript runtime Bub runs on, decided in one place (like Hono's `getRuntimeKey()`):
 * code that must differ by runtime asks {@link runtimeKey} instead of sniffing globals itself.
 *
 * @module
 */

/** The runtimes Bub tells apart. */
export type RuntimeKey = "deno" | "bun" | "node" | "other";

let key: RuntimeKey | null = null;

function detect(): RuntimeKey {
  const g = globalThis as {
    Bun?: unknown;
    Deno?: { version?: { deno?: unknown } };
    process?: { versions?: { node?: unknown } };
  };
  // Bun and Deno also define `process.versions.node`, so they are asked first.
  if (g.Bun !== undefined) return "bun";
  if (typeof g.Deno?.version?.deno === "string") return "deno";
  if (typeof g.process?.versions?.node === "string") return "node";
  return "other";
}

/**
 * The runtime this process runs on.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runtimeKey } from "./runtime.ts";
 * assert.ok(["deno", "bun", "node", "other"].includes(runtimeKey()));
 * ```
 */
export function runtimeKey(): RuntimeKey {
  return key ??= detect();
}
