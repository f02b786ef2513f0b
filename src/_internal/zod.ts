/**
 * zod, loaded on first use: it costs more import time than the whole kernel, and only tool
 * definitions and settings validation need it.
 *
 * @module
 */
import { lazyModule } from "./lazy.ts";

/** Returns the `zod` module, `require`d by the first call (its CommonJS build). */
export const zod: () => typeof import("zod") = lazyModule<typeof import("zod")>(
  "zod",
  () => import("zod"),
);
