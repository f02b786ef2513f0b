/**
 * The package version, the `version` of `deno.json` and `package.json` (a test and
 * `scripts/build_npm.ts` check that the three agree).
 *
 * @module
 */

/** The `@bub/core` version (`bub --version`). */
export const VERSION = "0.1.0";
