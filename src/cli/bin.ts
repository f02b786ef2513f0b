#!/usr/bin/env node
/**
 * The `bub` executable (npm `bin`).
 *
 * @module
 */
import { runProgram } from "./_program.ts";

await runProgram();
