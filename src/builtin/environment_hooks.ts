/**
 * The builtin plugin's environment hooks: a host {@link LocalEnvironment} per session and the
 * shell runtime's lifespan.
 *
 * @module
 */
import { LocalEnvironment } from "../environment/local_environment.ts";
import type { ShellManager } from "../environment/shell_manager.ts";
import type { ShellScope } from "../environment/shell_scope.ts";

/** Options of {@link createEnvironmentHooks}. */
export interface EnvironmentHooksOptions {
  /** The shell runtime whose lifespan `provideLifespan` returns. */
  shells: ShellManager;
  /**
   * The secret-named variables tool processes keep (setting `tool_env_passthrough`); null or
   * absent reads `BUB_TOOL_ENV_PASSTHROUGH` at spawn time.
   */
  envPassthrough?: () => readonly string[] | null;
}

/** The two hook implementations returned by {@link createEnvironmentHooks}. */
export interface EnvironmentHooks {
  /** `provideEnvironment`: a host environment rooted at the framework workspace. */
  provideEnvironment(args: { sessionId: string; workspace: string }): LocalEnvironment;
  /** `provideLifespan`: the shell manager's lifespan (one scope per `running()`). */
  provideLifespan(): AsyncGenerator<ShellScope, void, unknown>;
}

/**
 * Creates the builtin `provideEnvironment` and `provideLifespan` implementations.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ShellManager } from "../environment/shell_manager.ts";
 * import { createEnvironmentHooks } from "./environment_hooks.ts";
 * const hooks = createEnvironmentHooks({ shells: new ShellManager() });
 * const env = hooks.provideEnvironment({ sessionId: "cli:local", workspace: "/tmp" });
 * assert.ok(env.workspace === "/tmp");
 * ```
 */
export function createEnvironmentHooks(options: EnvironmentHooksOptions): EnvironmentHooks {
  const { shells } = options;
  return {
    provideEnvironment({ workspace }): LocalEnvironment {
      return new LocalEnvironment(workspace, { envPassthrough: options.envPassthrough?.() });
    },
    provideLifespan(): AsyncGenerator<ShellScope, void, unknown> {
      return shells.lifespan();
    },
  };
}
