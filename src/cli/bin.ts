#!/usr/bin/env node
/**
 * The `bub` executable (npm `bin`).
 *
 * @module
 */
import process from "node:process";
import { main } from "./main.ts";

const code = await main(process.argv.slice(2));
process.exitCode = code;
// The command has finished: a handle left open (e.g. a long poll a library failed to abort on
// shutdown) must not keep the process alive. The timer is unref'd, so normally it never fires.
setTimeout(() => process.exit(code), 2000).unref();
