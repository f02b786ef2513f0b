/**
 * `@bub/core`: Bub, the hook-first agent runtime.
 *
 * Every inbound message runs one turn through hook stages — `resolveSession → loadState →
 * buildPrompt → runModel(Stream) → saveState → renderOutbound → dispatchOutbound` — and every stage
 * is a hook that plugins implement. Plugins registered later win.
 *
 * @example An echo plugin
 * ```ts
 * import assert from "node:assert/strict";
 * import { BubFramework, contentOf, definePlugin } from "@bub/core";
 *
 * const echo = definePlugin({
 *   name: "echo",
 *   buildPrompt: ({ message }) => `[echo] ${contentOf(message)}`,
 *   runModel: ({ prompt }) => String(prompt),
 * });
 * const bub = new BubFramework();
 * bub.loadBuiltinHooks();
 * bub.register(echo);
 * await using _ = await bub.running();
 * const result = await bub.processInbound({ channel: "cli", chatId: "local", content: "hi" });
 * assert.ok(result.modelOutput === "[echo] hi");
 * ```
 *
 * The root holds the names most programs need (the framework, plugins, hook payloads and
 * decisions, envelopes, turn state keys, errors, tapes and stores, environments, channels and
 * tools); everything else lives in a subpath: `@bub/core/kernel`, `/tape`, `/agent`, `/tools`,
 * `/channels`, `/environment`, `/skills`, `/builtin`, `/testing` and `/cli`.
 *
 * @module
 */
export { BubFramework, type BubFrameworkOptions } from "./src/builtin/framework.ts";
export {
  definePlugin,
  hookimpl,
  type HookImplOptions,
  type Plugin,
  type PluginHooks,
} from "./src/kernel/plugin.ts";
export type { HookName } from "./src/kernel/hook_specs.ts";
export { HookRuntime } from "./src/kernel/hook_runtime.ts";
export {
  AgentHooks,
  LlmCallDecision,
  LlmCallRequest,
  LlmCallResult,
  ToolCall,
  ToolCallDecision,
  ToolCallResult,
} from "./src/kernel/agent_hooks.ts";
export type {
  AskDecision,
  DenyDecision,
  FinishDecision,
  LlmDecision,
  ProceedDecision,
  ReplaceDecision,
  ToolCallAction,
  ToolDecision,
} from "./src/kernel/decisions.ts";
export { contentOf, type Envelope, fieldOf } from "./src/kernel/envelope.ts";
export { ChannelMessage } from "./src/kernel/channel_message.ts";
export {
  AGENT_STATE_KEY,
  CONTEXT_STATE_KEY,
  ENVIRONMENT_STATE_KEY,
  MODEL_STATE_KEY,
  REASONING_EFFORT_STATE_KEY,
  SESSION_ID_STATE_KEY,
  STEERING_INBOX_STATE_KEY,
  TAPE_STATE_KEY,
  THREAD_ID_STATE_KEY,
  type TurnResult,
  type TurnState,
  WORKSPACE_STATE_KEY,
} from "./src/kernel/turn.ts";
export { AsyncStreamEvents, type StreamEvent } from "./src/kernel/stream.ts";
export type { StreamInboundOptions, TurnEvent } from "./src/kernel/turn_stream.ts";
export { BubError, ErrorKind } from "./src/kernel/errors.ts";
export type { MessageHandler } from "./src/kernel/channel.ts";
export { Environment, Process, type SpawnOptions } from "./src/kernel/environment.ts";
export { LocalEnvironment } from "./src/environment/local_environment.ts";
export { defineTool, Tool, type ToolContext } from "./src/tools/tool.ts";
export {
  FileTapeStore,
  InMemoryTapeStore,
  PostgresTapeStore,
  SqliteTapeStore,
  Tape,
  type TapeEntry,
  type TapeLease,
  TapeQuery,
  type TapeStore,
} from "./src/tape/mod.ts";
export { Channel } from "./src/channels/channel.ts";
export { ChannelManager } from "./src/channels/manager.ts";
