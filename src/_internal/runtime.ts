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

/** The oldest Node Bub runs on (`Promise.withResolvers`, `using`, `node:sqlite`'s needs). */
export const MIN_NODE_VERSION = "22.12";

/**
 * Why this runtime cannot run Bub, or null when it can: a Node older than
 * {@link MIN_NODE_VERSION} (Deno and Bun report a Node version of their own and are not judged by
 * it). `version` and `key` default to this process's.
 *
 * @example
 * ```ts
 * import { unsupportedRuntime } from "./runtime.ts";
 * console.assert(unsupportedRuntime("20.11.1", "node")?.startsWith("Bub needs Node >= 22.12"));
 * console.assert(unsupportedRuntime("22.12.0", "node") === null);
 * ```
 */
export function unsupportedRuntime(
  version: string | undefined = (globalThis as { process?: { versions?: { node?: string } } })
    .process?.versions?.node,
  key: RuntimeKey = runtimeKey(),
): string | null {
  if (key !== "node" || version === undefined) return null;
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const [needMajor, needMinor] = MIN_NODE_VERSION.split(".").map(Number) as [number, number];
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return null;
  return `Bub needs Node >= ${MIN_NODE_VERSION} (found ${version}): install a newer Node, ` +
    `or run Bub with Deno or Bun (bunx --bun @bub/core)`;
}
