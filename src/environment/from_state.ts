/**
 * {@link environmentFromState} and {@link workspaceFromState}: the environment and the workspace
 * a turn's tools (and its session tape) use.
 *
 * @module
 */
import { resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { expandHome } from "../_internal/home.ts";
import { Environment } from "../kernel/environment.ts";
import { ENVIRONMENT_STATE_KEY, WORKSPACE_STATE_KEY } from "../kernel/turn.ts";
import { LocalEnvironment } from "./local_environment.ts";

/**
 * Returns `state._runtime_environment` when it is an {@link Environment}; otherwise a host
 * {@link LocalEnvironment} for `state._runtime_workspace` (for tools run outside a framework turn).
 * A workspace that is neither a string nor a `file:` URL throws a `TypeError`; no workspace gives
 * an environment without one (relative paths then fail).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { environmentFromState } from "./from_state.ts";
 * const env = environmentFromState({ _runtime_workspace: "/srv/work" });
 * assert.ok(env.workspace === "/srv/work");
 * ```
 */
export function environmentFromState(state: Readonly<Record<string, unknown>>): Environment {
  const environment = state[ENVIRONMENT_STATE_KEY];
  if (environment instanceof Environment) return environment;
  const workspace = state[WORKSPACE_STATE_KEY];
  if (workspace === null || workspace === undefined || workspace === "") {
    return new LocalEnvironment(null);
  }
  if (typeof workspace === "string") return new LocalEnvironment(workspace);
  if (workspace instanceof URL && workspace.protocol === "file:") {
    return new LocalEnvironment(fileURLToPath(workspace));
  }
  throw new TypeError(
    `runtime workspace must be a filesystem path, got ${_describe(workspace)}`,
  );
}

/**
 * The workspace of a turn state, as an absolute path: `_runtime_workspace` when it is a non-blank
 * string (with `~` expanded); else the workspace of the state's {@link Environment}
 * (`_runtime_environment`) or of a `file:` URL in `_runtime_workspace`; else the process working
 * directory. The agent names session tapes with it and the builtin tools use it, so both agree.
 *
 * @throws {TypeError} when `_runtime_workspace` is neither a string nor a `file:` URL (and no
 *   environment is given), as {@link environmentFromState} does
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { workspaceFromState } from "./from_state.ts";
 * assert.ok(workspaceFromState({ _runtime_workspace: "/srv/work" }) === "/srv/work");
 * assert.ok(workspaceFromState({}) === process.cwd());
 * ```
 */
export function workspaceFromState(state: Readonly<Record<string, unknown>>): string {
  const value = state[WORKSPACE_STATE_KEY];
  if (typeof value === "string" && value.trim() !== "") return resolve(expandHome(value));
  const environment = state[ENVIRONMENT_STATE_KEY];
  if (environment instanceof Environment || typeof value !== "string") {
    return resolve(environmentFromState(state).workspace ?? process.cwd());
  }
  return resolve(process.cwd());
}

function _describe(value: unknown): string {
  if (typeof value === "object") return `an object (${Object.prototype.toString.call(value)})`;
  return `${typeof value} ${String(value)}`;
}
