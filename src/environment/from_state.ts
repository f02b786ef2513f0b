/**
 * {@link environmentFromState}: the environment tools use for a turn.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
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
 * import { environmentFromState } from "./from_state.ts";
 * const env = environmentFromState({ _runtime_workspace: "/srv/work" });
 * console.assert(env.workspace === "/srv/work");
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

function _describe(value: unknown): string {
  if (typeof value === "object") return `an object (${Object.prototype.toString.call(value)})`;
  return `${typeof value} ${String(value)}`;
}
