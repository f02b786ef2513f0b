#!/usr/bin/env node
/**
 * The `bub` executable (npm `bin`).
 *
 * @module
 */
import process from "node:process";
import { main } from "./main.ts";

process.exitCode = await main(process.argv.slice(2));
