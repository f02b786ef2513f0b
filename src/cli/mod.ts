/**
 * The `bub` command line.
 *
 * @module
 */
export { main, type MainOptions } from "./main.ts";
