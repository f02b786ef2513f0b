/**
 * Private: the framework's folds over the typed dispatcher — session id fallback, result checks
 * (`hook_results.ts`), model-option merging, sidecar and channel de-duplication, the system
 * prompt join and the onboarding merge.
 *
 * @module
 */
import { walkHookSync } from "./_hook_walk.ts";
import type { AdmitDecision, Channel, MessageHandler, TurnSnapshot } from "./channel.ts";
import { mergeConfig, validateConfig } from "./configure.ts";
import { defaultSessionId, type Envelope } from "./envelope.ts";
import type { HookRuntime } from "./hook_runtime.ts";
import { checkHookResult, describe } from "./hook_results.ts";
import type { HookArgs } from "./hook_specs.ts";
import type { ModelChoice, ModelOptions } from "./model_options.ts";
import type { TapeContext, TapeSidecar } from "./tape_context.ts";
import type { Prompt, TurnState } from "./turn.ts";

/** One sync hook result with the plugin that produced it. */
export interface SyncResult {
  value: unknown;
  pluginName: string;
}

/** The validating wrappers the framework puts around individual hooks. */
export class FrameworkHooks {
  #runtime: HookRuntime;

  constructor(runtime: HookRuntime) {
    this.#runtime = runtime;
  }

  async resolveSession(message: Envelope): Promise<string> {
    const value = await this.#runtime.call("resolveSession", { message });
    return String(value || defaultSessionId(message));
  }

  async continuePrompt(
    args: { prompt: Prompt | null; tape: unknown; state: unknown },
  ): Promise<string | null> {
    const value = await this.#runtime.call("continuePrompt", args as HookArgs<"continuePrompt">);
    return checkHookResult("continuePrompt", value);
  }

  async admitMessage(
    args: { sessionId: string; message: Envelope; turn: TurnSnapshot },
  ): Promise<AdmitDecision | null> {
    return checkHookResult("admitMessage", await this.#runtime.call("admitMessage", args));
  }

  async getModelOptions(sessionId: string, workspace: string): Promise<ModelOptions> {
    const results = await this.#runtime.call("provideModelOptions", { sessionId, workspace });
    const models: ModelChoice[] = [];
    let currentModel: string | null = null;
    for (const result of results) {
      const value = checkHookResult("provideModelOptions", result);
      if (value === null) continue;
      models.push(...value.models);
      if (!currentModel && value.currentModel) currentModel = value.currentModel;
    }
    return { models, currentModel };
  }

  /** Sync dispatch that keeps plugin names; `first` stops at the first non-null value. */
  syncResults(hook: string, args: object, first: boolean): SyncResult[] {
    const out: SyncResult[] = [];
    walkHookSync(this.#runtime.implementations(hook), args, (value, impl) => {
      if (first && (value === null || value === undefined)) return false;
      out.push({ value, pluginName: impl.pluginName });
      return first;
    });
    return out;
  }

  getTapeSidecars(): readonly TapeSidecar[] {
    const seen = new Map<string, TapeSidecar>();
    for (const result of this.#runtime.call("provideTapeSidecar", {})) {
      const value = checkHookResult("provideTapeSidecar", result);
      if (value !== null && !seen.has(value.name)) seen.set(value.name, value);
    }
    return Object.freeze([...seen.values()]);
  }

  getSystemPrompt(args: { prompt: Prompt; state: TurnState }): string {
    const parts = this.#runtime.call("systemPrompt", args).reverse();
    return parts.filter((part) => part).map(String).join("\n\n");
  }

  buildTapeContext(): TapeContext {
    const value = checkHookResult("buildTapeContext", this.#runtime.call("buildTapeContext", {}));
    return value as TapeContext;
  }

  getChannels(messageHandler: MessageHandler): Map<string, Channel> {
    const channels = new Map<string, Channel>();
    for (const result of this.#runtime.call("provideChannels", { messageHandler })) {
      const list = checkHookResult("provideChannels", result);
      if (list === null) continue;
      for (const channel of list) {
        if (typeof channel?.name !== "string") {
          throw new TypeError(
            `hook.provide_channels returned a channel without a name: ${describe(channel)}`,
          );
        }
        if (!channels.has(channel.name)) channels.set(channel.name, channel);
      }
    }
    return channels;
  }

  collectOnboardConfig(): Record<string, unknown> {
    const config: Record<string, unknown> = {};
    walkHookSync(
      this.#runtime.implementations("onboardConfig"),
      { currentConfig: config },
      (result, impl) => {
        const value = checkHookResult("onboardConfig", result, impl.pluginName);
        if (value !== null) mergeConfig(config, value);
      },
      { reverse: true, copyArgs: true },
    );
    return validateConfig(config);
  }
}
