#!/usr/bin/env node
/**
 * The `bub` executable (npm `bin`).
 *
 * It first refuses a Node older than 22.12 with a line saying so, and turns on Node's on-disk
 * compile cache (Node >= 22.1; `NODE_DISABLE_COMPILE_CACHE=1`
 * turns it off, `NODE_COMPILE_CACHE` chooses its folder), so a second `bub` start skips compiling
 * the package's modules. Only this program does it, never a library module. Then, on Linux, it
 * starts again without API keys and tokens in its start-up environment, before anything else is
 * loaded (see `secret_handoff.ts`). The CLI is imported after that, with `await import()`: a
 * static import would be compiled before this body runs.
 *
 * @module
 */
import * as nodeModule from "node:module";
import process from "node:process";
import { unsupportedRuntime } from "../_internal/runtime.ts";
import { handOffEnvSecrets } from "./secret_handoff.ts";

// Deno and Bun have no such cache (the function is missing or does nothing there).
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
// An old Node fails far from the cause (`Promise.withResolvers is not a function`): say so first.
const unsupported = unsupportedRuntime();
if (unsupported !== null) {
  process.stderr.write(`bub: ${unsupported}\n`);
  process.exitCode = 1;
} else if (await handOffEnvSecrets()) {
  const { runProgram } = await import("./_program.ts");
  await runProgram();
} else {
  process.exitCode = 1;
}
