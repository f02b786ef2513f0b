import type { FrameworkHooks } from "./_framework_hooks.ts";
import { EnvironmentCache } from "./_environment_cache.ts";
import type { ChannelRouter, SteeringInbox } from "./channel.ts";
import { RunningScope } from "./running_scope.ts";

/**
 * What a `running()` scope holds: the tape store, the steering inbox and the session
 * environments (kernel spec §6.8–§6.9); also the channel router bound while channels run.
 */
export class RuntimeResources {
  /** The entered tape store, or null outside a scope. */
  tapeStore: object | null = null;
  /** The entered steering inbox, or null outside a scope. */
  steeringInbox: SteeringInbox | null = null;
  /** The bound channel router, or null (`bindChannelRouter`). */
  router: ChannelRouter | null = null;
  /** One environment per session, closed when the scope exits. */
  readonly environments: EnvironmentCache = new EnvironmentCache();

  /**
   * Enters lifespans (priority order), then the tape store, then the steering inbox. An entry
   * failure unwinds what was entered and rethrows; both references are reset on every exit path.
   */
  async open(hooks: FrameworkHooks): Promise<RunningScope> {
    let entered = false;
    const scope = new RunningScope(() => this.#exit(entered));
    try {
      for (const { value, pluginName } of hooks.syncResults("provideLifespan", {}, false)) {
        await scope.enter(value, `provideLifespan of plugin "${pluginName}"`);
      }
      const [store] = hooks.syncResults("provideTapeStore", {}, true);
      this.tapeStore = store
        ? await scope.enter<object | null>(
          store.value,
          `provideTapeStore of plugin "${store.pluginName}"`,
        )
        : null;
      const [inbox] = hooks.syncResults("provideSteeringInbox", {}, true);
      this.steeringInbox = inbox
        ? await scope.enter<SteeringInbox | null>(
          inbox.value,
          `provideSteeringInbox of plugin "${inbox.pluginName}"`,
        )
        : null;
      entered = true;
    } catch (error) {
      this.tapeStore = null;
      this.steeringInbox = null;
      await scope.close(error).catch(() => {});
      throw error;
    }
    return scope;
  }

  async #exit(entered: boolean): Promise<void> {
    this.tapeStore = null;
    this.steeringInbox = null;
    // An entry failure leaves cached environments alone (they belong to the next scope).
    if (!entered) return;
    await this.environments.closeAll();
  }
}
