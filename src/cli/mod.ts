/**
 * The `bub` command line.
 *
 * @module
 */
export { main } from "./main.ts";
