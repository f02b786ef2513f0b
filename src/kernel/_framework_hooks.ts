import { kernelLogger } from "./_log.ts";
import {
  type AdmitDecision,
  type Channel,
  isAdmitDecision,
  type MessageHandler,
  type TurnSnapshot,
} from "./channel.ts";
import { mergeConfig, validateConfig } from "./configure.ts";
import { defaultSessionId, type Envelope } from "./envelope.ts";
import { describe, type HookRuntime, isThenable } from "./hook_runtime.ts";
import { isModelOptions, type ModelChoice, type ModelOptions } from "./model_options.ts";
import { TapeContext, type TapeSidecar } from "./tape_context.ts";
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
    const value = await this.#runtime.callFirst("resolveSession", { message });
    return String(value || defaultSessionId(message));
  }

  async continuePrompt(
    args: { prompt: Prompt | null; tape: unknown; state: unknown },
  ): Promise<string | null> {
    const value = await this.#runtime.callFirst("continuePrompt", args);
    if (value !== null && typeof value !== "string") {
      throw new TypeError(`hook.continue_prompt must return str or None, got ${describe(value)}`);
    }
    return value as string | null;
  }

  async admitMessage(
    args: { sessionId: string; message: Envelope; turn: TurnSnapshot },
  ): Promise<AdmitDecision | null> {
    const value = await this.#runtime.callFirst("admitMessage", args);
    if (value !== null && !isAdmitDecision(value)) {
      throw new TypeError(
        `hook.admit_message must return AdmitDecision or None, got ${describe(value)}`,
      );
    }
    return value as AdmitDecision | null;
  }

  async getModelOptions(sessionId: string, workspace: string): Promise<ModelOptions> {
    const results = await this.#runtime.callMany("provideModelOptions", { sessionId, workspace });
    const models: ModelChoice[] = [];
    let currentModel: string | null = null;
    for (const value of results) {
      if (value === null) continue;
      if (!isModelOptions(value)) {
        throw new TypeError(
          `hook.provide_model_options must return ModelOptions or None, got ${describe(value)}`,
        );
      }
      models.push(...value.models);
      if (!currentModel && value.currentModel) currentModel = value.currentModel;
    }
    return { models, currentModel };
  }

  /** Sync dispatch that keeps plugin names; `first` stops at the first non-null value. */
  syncResults(hook: string, args: object, first: boolean): SyncResult[] {
    const out: SyncResult[] = [];
    for (const impl of this.#runtime.implementations(hook)) {
      const value = impl.fn.call(impl.plugin, args as Record<string, unknown>);
      if (isThenable(value)) {
        kernelLogger.warn("hook.async_not_supported hook={hook} adapter={adapter}", {
          hook,
          adapter: impl.pluginName,
        });
        Promise.resolve(value).catch(() => {});
        continue;
      }
      if (first && (value === null || value === undefined)) continue;
      out.push({ value, pluginName: impl.pluginName });
      if (first) break;
    }
    return out;
  }

  getTapeSidecars(): readonly TapeSidecar[] {
    const seen = new Map<string, TapeSidecar>();
    for (const value of this.#runtime.callManySync("provideTapeSidecar", {})) {
      if (value === null) continue;
      const name = (value as { name?: unknown }).name;
      if (typeof name !== "string") {
        throw new TypeError(
          `hook.provide_tape_sidecar must return a sidecar with a string name, got ${
            describe(value)
          }`,
        );
      }
      if (!seen.has(name)) seen.set(name, value as TapeSidecar);
    }
    return Object.freeze([...seen.values()]);
  }

  getSystemPrompt(args: { prompt: Prompt; state: TurnState }): string {
    const parts = this.#runtime.callManySync("systemPrompt", args).reverse();
    return parts.filter((part) => part).map(String).join("\n\n");
  }

  buildTapeContext(): TapeContext {
    const value = this.#runtime.callFirstSync("buildTapeContext", {});
    if (!(value instanceof TapeContext)) {
      throw new TypeError(
        `hook.build_tape_context must return TapeContext, got ${describe(value)}`,
      );
    }
    return value;
  }

  getChannels(messageHandler: MessageHandler): Map<string, Channel> {
    const channels = new Map<string, Channel>();
    for (const list of this.#runtime.callManySync("provideChannels", { messageHandler })) {
      if (list === null) continue;
      if (!Array.isArray(list)) {
        throw new TypeError(
          `hook.provide_channels must return a list of channels, got ${describe(list)}`,
        );
      }
      for (const channel of list as Channel[]) {
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
    for (const impl of [...this.#runtime.implementations("onboardConfig")].reverse()) {
      const value = impl.fn.call(impl.plugin, { currentConfig: config });
      if (isThenable(value)) {
        kernelLogger.warn("hook.async_not_supported hook={hook} adapter={adapter}", {
          hook: "onboardConfig",
          adapter: impl.pluginName,
        });
        Promise.resolve(value).catch(() => {});
        continue;
      }
      if (value === null || value === undefined) continue;
      if (typeof value !== "object" || Array.isArray(value)) {
        throw new TypeError(
          `hook.onboard_config must return dict or None, got ${
            describe(value)
          } from plugin "${impl.pluginName}"`,
        );
      }
      mergeConfig(config, value as Record<string, unknown>);
    }
    return validateConfig(config);
  }
}
