/**
 * Picks the process driver of the running runtime once: `Deno.Command` on Deno,
 * `node:child_process` on Node and Bun. Kept apart from the driver contract
 * (`process_driver.ts`), which both drivers implement.
 *
 * @module
 */
import { createDenoDriver, denoCommandAvailable } from "./deno_driver.ts";
import { createNodeDriver } from "./node_driver.ts";
import type { ProcessDriver } from "./process_driver.ts";

let selected: ProcessDriver | null = null;

/**
 * Returns the driver of the running runtime, probed on first use: `Deno.Command` on Deno,
 * `node:child_process` on Node and Bun.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { processDriver } from "./driver_select.ts";
 * assert.ok(["deno", "node"].includes(processDriver().name));
 * ```
 */
export function processDriver(): ProcessDriver {
  selected ??= denoCommandAvailable() ? createDenoDriver() : createNodeDriver();
  return selected;
}
