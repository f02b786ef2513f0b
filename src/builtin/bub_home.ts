/**
 * Where Bub's files are: its home (`BUB_HOME`, else `~/.bub`), the config file (`BUB_CONFIG`,
 * else `config.yml` there) and `.env` files. Nothing is read at import.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { expandHome } from "../_internal/home.ts";
import { parseDotenv } from "../kernel/configure.ts";
import type { EnvMap } from "./_settings_fields.ts";

/** Expands a leading `~` (alone or followed by `/`) to `home`; see `_internal/home.ts`. */
export { expandHome };

/**
 * Bub's home: `BUB_HOME` with `~` expanded, else `<home>/.bub`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveBubHome } from "./bub_home.ts";
 * assert.ok(resolveBubHome({ env: {}, home: "/home/a" }) === "/home/a/.bub");
 * assert.ok(resolveBubHome({ env: { BUB_HOME: "~/b" }, home: "/home/a" }) === "/home/a/b");
 * ```
 */
export function resolveBubHome(options: { env?: EnvMap; home?: string } = {}): string {
  const home = options.home ?? homedir();
  const value = options.env?.BUB_HOME;
  return value ? expandHome(value, home) : join(home, ".bub");
}

/**
 * The config file: `BUB_CONFIG` (with `~` expanded), else `config.yml` in Bub's home
 * ({@link resolveBubHome}: `BUB_HOME`, else `<home>/.bub`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defaultConfigFile } from "./bub_home.ts";
 * assert.ok(defaultConfigFile("/home/a") === "/home/a/.bub/config.yml");
 * assert.ok(defaultConfigFile("/home/a", { BUB_HOME: "/srv/bub" }) === "/srv/bub/config.yml");
 * assert.ok(defaultConfigFile("/home/a", { BUB_CONFIG: "~/c.yml" }) === "/home/a/c.yml");
 * ```
 */
export function defaultConfigFile(home: string = homedir(), env: EnvMap = {}): string {
  if (env.BUB_CONFIG) return expandHome(env.BUB_CONFIG, home);
  return join(resolveBubHome({ env, home }), "config.yml");
}

/**
 * Reads a `.env` file into a map; a missing or unreadable file gives `{}`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mkdtempSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { readDotenvFile } from "@bub/core/builtin";
 * const path = join(mkdtempSync(join(tmpdir(), "bub-")), ".env");
 * writeFileSync(path, "BUB_MODEL=openai:gpt-4o # default\n");
 * assert.deepEqual(readDotenvFile(path), { BUB_MODEL: "openai:gpt-4o" });
 * assert.deepEqual(readDotenvFile(join(path, "..", "missing.env")), {});
 * ```
 */
export function readDotenvFile(path: string): Record<string, string> {
  try {
    return parseDotenv(readFileSync(path, "utf8"));
  } catch {
    return {};
  }
}
