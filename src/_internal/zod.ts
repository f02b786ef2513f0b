/**
 * zod, for tool definitions and settings validation (both synchronous).
 *
 * @module
 */
import * as zodModule from "zod";

/** Returns the `zod` module (imported statically). */
export function zod(): typeof import("zod") {
  return zodModule;
}
