/**
 * Private: what the turn stages need of the framework — hook dispatch, the running scope's
 * resources and the workspace — so that they never call back into `KernelFramework`.
 *
 * @module
 */
import type { RuntimeResources } from "./_runtime_resources.ts";
import type { HookRuntime } from "./hook_runtime.ts";

/** The narrow host of the turn stages (`_turn_pipeline.ts`, `_turn_state.ts`). */
export interface TurnHost {
  /** Hook dispatch. */
  readonly hooks: HookRuntime;
  /** The running scope: tape store, steering inbox, session environments, channel router. */
  readonly resources: RuntimeResources;
  /** The framework's workspace (absolute, resolved). */
  readonly workspace: string;
}

/** A {@link TurnHost} whose `workspace` follows `workspace()` (the framework's may change). */
export function turnHost(
  hooks: HookRuntime,
  resources: RuntimeResources,
  workspace: () => string,
): TurnHost {
  return {
    hooks,
    resources,
    get workspace(): string {
      return workspace();
    },
  };
}
