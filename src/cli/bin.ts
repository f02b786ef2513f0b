#!/usr/bin/env node
/**
 * The `bub` executable (npm `bin`).
 *
 * It first turns on Node's on-disk compile cache (Node >= 22.1; `NODE_DISABLE_COMPILE_CACHE=1`
 * turns it off, `NODE_COMPILE_CACHE` chooses its folder), so a second `bub` start skips compiling
 * the package's modules. Only this program does it, never a library module. The CLI is imported
 * after that, with `await import()`: a static import would be compiled before this body runs.
 *
 * @module
 */
import * as nodeModule from "node:module";

// Deno and Bun have no such cache (the function is missing or does nothing there).
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const { runProgram } = await import("./_program.ts");
await runProgram();
