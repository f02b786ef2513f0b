#!/usr/bin/env node
/**
 * The `bub` executable (npm `bin`).
 *
 * It first turns on Node's on-disk compile cache (Node >= 22.1; `NODE_DISABLE_COMPILE_CACHE=1`
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
import { handOffEnvSecrets } from "./secret_handoff.ts";

// Deno and Bun have no such cache (the function is missing or does nothing there).
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
if (await handOffEnvSecrets()) {
  const { runProgram } = await import("./_program.ts");
  await runProgram();
} else {
  process.exitCode = 1;
}
