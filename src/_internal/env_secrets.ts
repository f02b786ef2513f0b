/**
 * Secrets in a process's start-up environment. On Linux, `/proc/<pid>/environ` shows the
 * environment a process was started with (the memory given to `execve`) to every process of the
 * same user; `setenv`, `unsetenv` and `delete process.env.X` do not change it. A command Bub runs
 * can therefore read an API key from there even though its own environment was scrubbed, unless
 * the key was never in Bub's start-up environment. The `bub` command makes sure of that by
 * starting again without the keys (`src/cli/secret_handoff.ts`); a program that embeds Bub
 * cannot, and gets one warning per process from {@link warnExposedEnvSecrets} when Bub's settings
 * read a key that is readable there.
 *
 * @module
 */
import process from "node:process";
import { readFileSync } from "node:fs";
import { isSecretEnvName } from "./redact.ts";

/** The variable that keeps the secrets in the `bub` process's start-up environment (`1`). */
export const KEEP_ENV = "BUB_KEEP_ENV";

/** What the warning was already given for (one per process, even with two copies of Bub). */
const WARNED = Symbol.for("bub.envSecretsWarned");

/** True when `value` of {@link KEEP_ENV} asks to keep the environment (`1`, `true`, `yes`, `on`). */
export function keepEnvRequested(value: string | undefined): boolean {
  return /^(1|true|yes|on)$/i.test(value?.trim() ?? "");
}

/**
 * The environment this process was started with, from `/proc/self/environ`; null where that file
 * does not exist or cannot be read (not Linux, or Deno without read permission).
 */
export function startEnvironment(): Map<string, string> | null {
  if (process.platform !== "linux") return null;
  let text: string;
  try {
    text = readFileSync("/proc/self/environ", "utf8");
  } catch {
    return null;
  }
  const env = new Map<string, string>();
  for (const entry of text.split("\0")) {
    const eq = entry.indexOf("=");
    if (eq > 0) env.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return env;
}

/**
 * The secret-named entries of the start-up environment on Linux (none elsewhere). Where
 * `/proc/self/environ` cannot be read (Deno without `-A`: it wants all permissions for
 * `/proc/self`), those of `process.env`, which may have been there.
 */
export function startEnvSecrets(): Map<string, string> {
  const secrets = new Map<string, string>();
  if (process.platform !== "linux") return secrets;
  const start = startEnvironment() ?? Object.entries(process.env);
  for (const [name, value] of start) {
    if (value === undefined) continue;
    if (value !== "" && isSecretEnvName(name)) secrets.set(name, value);
  }
  return secrets;
}

interface WarnState {
  /** Already warned (or nothing can ever be warned about in this process). */
  done: boolean;
  /** The exposed secrets, read once. */
  exposed: Map<string, string> | null;
}

function warnState(): WarnState {
  const holder = globalThis as { [WARNED]?: WarnState };
  return holder[WARNED] ??= { done: false, exposed: null };
}

/** Records that the process already warned about its start-up secrets (so settings stay quiet). */
export function noteEnvSecretsWarned(): void {
  warnState().done = true;
}

/** What a program that embeds Bub can do about a key in its start-up environment. */
const LIBRARY_REMEDY = "Pass the key to Bub through config.yml instead of the environment, or " +
  "start Bub with the `bub` command, which starts again without it.";

/**
 * The warning for `names` in the start-up environment, with what to do (`remedy`; by default the
 * advice for a program that embeds Bub).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { exposedSecretsWarning } from "./env_secrets.ts";
 * assert.ok(exposedSecretsWarning(["BUB_API_KEY"]).includes("/proc/"));
 * ```
 */
export function exposedSecretsWarning(
  names: readonly string[],
  remedy: string = LIBRARY_REMEDY,
): string {
  return `${names.join(", ")} ${names.length === 1 ? "is" : "are"} in this process's start-up ` +
    `environment, which every command Bub runs can read from /proc/${process.pid}/environ ` +
    `(deleting it from process.env does not change that file). ${remedy} Set ${KEEP_ENV}=1 ` +
    "to accept this and silence the warning.";
}

/**
 * Warns once per process (through `process.emitWarning`, code `BUB_ENV_SECRETS`) when `env` holds
 * a secret-named variable with the same value as this process's start-up environment on Linux: a
 * key that Bub's settings read there, and that every command Bub runs can read from
 * `/proc/<pid>/environ`. Cheap after the first call (the start-up environment is read once).
 * Silent with `BUB_KEEP_ENV=1` in `env` or the process environment.
 *
 * @example
 * ```ts
 * import { warnExposedEnvSecrets } from "./env_secrets.ts";
 * warnExposedEnvSecrets({ BUB_MODEL: "openai:gpt-4o" }); // nothing secret: no warning
 * ```
 */
export function warnExposedEnvSecrets(env: Readonly<Record<string, string | undefined>>): void {
  const state = warnState();
  if (state.done) return;
  state.exposed ??= startEnvSecrets();
  if (state.exposed.size === 0) {
    state.done = true;
    return;
  }
  const names = [...state.exposed].filter(([name, value]) => env[name] === value)
    .map(([name]) => name);
  if (names.length === 0) return;
  state.done = true;
  if (keepEnvRequested(env[KEEP_ENV] ?? process.env[KEEP_ENV])) return;
  process.emitWarning(exposedSecretsWarning(names), { code: "BUB_ENV_SECRETS" });
}
