/**
 * Private: model dispatch (kernel spec §3.6): the model family of the newest plugin that
 * implements a model hook, and the adapters between the text and the stream families.
 *
 * @module
 */
import { abortableIterable } from "../_internal/async.ts";
import { checkHookResult, describe } from "./hook_results.ts";
import type { DispatchHook, HookArgs, HookDispatch } from "./hook_specs.ts";
import type { PluginManager } from "./plugin_manager.ts";
import { AsyncStreamEvents, type StreamEvent, StreamState } from "./stream.ts";
import type { Prompt, TurnState } from "./turn.ts";

/**
 * Arguments of the model hooks.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { definePlugin } from "@bub/core";
 * import { KernelFramework, type RunModelArgs } from "@bub/core/kernel";
 * const kernel = new KernelFramework({ loadDotenv: false });
 * kernel.register(definePlugin({ name: "echo", runModel: ({ prompt }) => `echo: ${prompt}` }));
 * const args: RunModelArgs = { prompt: "hi", sessionId: "cli:local", state: {} };
 * assert.equal(await kernel.hookRuntime.runModel(args), "echo: hi");
 * ```
 */
export interface RunModelArgs {
  /** The prompt. */
  prompt: Prompt;
  /** The session id. */
  sessionId: string;
  /** The turn state. */
  state: TurnState;
  /** Cancels the model call. */
  signal?: AbortSignal;
}

/** What model dispatch needs of a `HookRuntime` (one is). */
export interface ModelHooks {
  /** The registry. */
  readonly pluginManager: PluginManager;
  /** The typed dispatcher. */
  call<K extends DispatchHook>(hook: K, args: HookArgs<K>): HookDispatch<K>;
}

/**
 * The model family ("text" or "stream") chosen by the newest registered plugin that implements
 * a model hook, or null.
 */
export function modelFamily(
  plugins: PluginManager,
  prefer: "text" | "stream",
): "text" | "stream" | null {
  const first = prefer === "text" ? "runModel" : "runModelStream";
  const second = prefer === "text" ? "runModelStream" : "runModel";
  for (const plugin of [...plugins.plugins.values()].reverse()) {
    if (hasImpl(plugins, plugin, first)) return first === "runModel" ? "text" : "stream";
    if (hasImpl(plugins, plugin, second)) return second === "runModel" ? "text" : "stream";
  }
  return null;
}

function hasImpl(plugins: PluginManager, plugin: object, hook: string): boolean {
  return plugins.implementations(hook).some((impl) => impl.plugin === plugin);
}

/** `runModel`'s answer, checked. */
async function textOf(hooks: ModelHooks, args: RunModelArgs): Promise<string | null> {
  return checkHookResult("runModel", await hooks.call("runModel", args));
}

/** `HookRuntime.runModel`: the text family, or the concatenated `text` deltas of a stream. */
export async function runModelText(
  hooks: ModelHooks,
  args: RunModelArgs,
): Promise<string | null> {
  const family = modelFamily(hooks.pluginManager, "text");
  if (family === null) return null;
  if (family === "text") return await textOf(hooks, args);
  const stream = await hooks.call("runModelStream", args);
  if (stream === null) return null;
  const events = asStream(stream);
  let text = "";
  try {
    for await (const event of abortableIterable(events, args.signal)) {
      if (event.kind === "text") text += deltaOf(event);
    }
  } finally {
    await events.close();
  }
  return text;
}

/** `HookRuntime.runModelStream`: the stream family, or a one-event stream around `runModel`. */
export async function runModelEvents(
  hooks: ModelHooks,
  args: RunModelArgs,
): Promise<AsyncStreamEvents | null> {
  const family = modelFamily(hooks.pluginManager, "stream");
  if (family === null) return null;
  if (family === "stream") {
    return checkHookResult("runModelStream", await hooks.call("runModelStream", args));
  }
  async function* once(): AsyncGenerator<StreamEvent> {
    const value = await textOf(hooks, args);
    yield { kind: "text", data: { delta: value ?? "" } };
  }
  return new AsyncStreamEvents(once(), { state: new StreamState() });
}

function asStream(value: unknown): AsyncIterable<StreamEvent> & { close(): Promise<void> } {
  if (value instanceof AsyncStreamEvents) return value;
  if (typeof value === "object" && value !== null && Symbol.asyncIterator in value) {
    return new AsyncStreamEvents(value as AsyncIterable<StreamEvent>);
  }
  throw new TypeError(
    `hook.run_model_stream must return AsyncStreamEvents or None, got ${describe(value)}`,
  );
}

/** `String(event.data.delta ?? "")`. */
export function deltaOf(event: StreamEvent): string {
  const delta = (event.data as { delta?: unknown } | undefined)?.delta;
  return delta === null || delta === undefined ? "" : String(delta);
}
