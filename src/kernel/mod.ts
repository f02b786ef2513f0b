/**
 * The microkernel as a plugin author sees it: the framework, plugins and hook types, the hook
 * runtime, agent-loop payloads and decisions, envelopes and channel messages, turn state keys,
 * stream events and turn events, errors, model options, the channel and environment contracts,
 * tape context selection and config section registration.
 *
 * Helpers only the builtin plugin and the channels use (envelope normalising, config file loading,
 * decision coercion, hook spec tables) are imported from their modules inside the package instead.
 *
 * @example A plugin that answers from its own state
 * ```ts
 * import assert from "node:assert/strict";
 * import { definePlugin, KernelFramework, type TurnState } from "@bub/core/kernel";
 *
 * const greeter = definePlugin({
 *   name: "greeter",
 *   loadState: (): TurnState => ({ greeting: "hello" }),
 *   runModel: ({ state }) => `${state.greeting}, world`,
 * });
 * const kernel = new KernelFramework();
 * kernel.register(greeter);
 * const result = await kernel.processInbound({ channel: "cli", chatId: "local", content: "hi" });
 * assert.equal(result.modelOutput, "hello, world");
 * ```
 *
 * @module
 */
export { type CliApp, type CliHost } from "./cli_app.ts";
export {
  type FrameworkOptions,
  KernelFramework,
  type LoadHooksOptions,
  type PluginSource,
  type ProcessInboundOptions,
} from "./framework.ts";
export { type ExitCallback, RunningScope } from "./running_scope.ts";
export {
  definePlugin,
  hookimpl,
  type HookImplOptions,
  type Plugin,
  type PluginHooks,
  type PluginTool,
} from "./plugin.ts";
export { type HookImplementation, PluginManager, type PluginStatus } from "./plugin_manager.ts";
export {
  type DispatchHook,
  type HookArgs,
  type HookDispatch,
  type HookKinds,
  type HookName,
  type HookResult,
  type HookSignatures,
  type HooksWhere,
  type HookValue,
  type MaybePromise,
  type Resource,
} from "./hook_specs.ts";
export { HookRuntime, type NotifyErrorArgs, type RunModelArgs } from "./hook_runtime.ts";
export {
  AgentHooks,
  LlmCallDecision,
  LlmCallRequest,
  type LlmCallRequestInit,
  LlmCallResult,
  type LlmCallResultInit,
  ToolCall,
  ToolCallDecision,
  type ToolCallInit,
  ToolCallResult,
  type ToolCallResultInit,
} from "./agent_hooks.ts";
export {
  type AskDecision,
  type DenyDecision,
  type FinishDecision,
  type LlmDecision,
  type ProceedDecision,
  type ReplaceDecision,
  type ToolCallAction,
  type ToolDecision,
} from "./decisions.ts";
export { contentOf, type Envelope, fieldOf } from "./envelope.ts";
export {
  ChannelMessage,
  type ChannelMessageInit,
  MediaItem,
  type MediaItemInit,
  type MediaType,
  type MessageKind,
} from "./channel_message.ts";
export {
  AGENT_STATE_KEY,
  type ContentPart,
  CONTEXT_STATE_KEY,
  ENVIRONMENT_STATE_KEY,
  MODEL_STATE_KEY,
  type Prompt,
  REASONING_EFFORT_STATE_KEY,
  SESSION_ID_STATE_KEY,
  STEERING_INBOX_STATE_KEY,
  TAPE_STATE_KEY,
  THREAD_ID_STATE_KEY,
  type TurnResult,
  type TurnState,
  WORKSPACE_STATE_KEY,
} from "./turn.ts";
export {
  AsyncStreamEvents,
  type AsyncStreamEventsOptions,
  type StreamEvent,
  type StreamEventKind,
  StreamState,
} from "./stream.ts";
export { type StreamInboundOptions, type TurnDoneEvent, type TurnEvent } from "./turn_stream.ts";
export type {
  DeltaPayload,
  ErrorPayload,
  FinalPayload,
  HeldCall,
  StepEndPayload,
  StepStartPayload,
  StreamEventInit,
  StreamEventMap,
  StreamEventOf,
  ToolCallPayload,
  ToolCallsPayload,
  ToolEndPayload,
  ToolObserver,
  ToolResultsPayload,
  ToolStartPayload,
  UsagePayload,
} from "./stream_events.ts";
export type { StatefulHook, StatefulHooks, WithTurnState } from "./plugin_state.ts";
export { BubError, type BubErrorDict, ErrorKind } from "./errors.ts";
export { type ModelChoice, type ModelOptions } from "./model_options.ts";
export {
  type AdmitDecision,
  admitDecision,
  type Channel,
  type ChannelContract,
  type ChannelRouter,
  type MessageHandler,
  type SteeringInbox,
  type TurnAdmissionAction,
  type TurnSnapshot,
} from "./channel.ts";
export {
  TapeContext,
  type TapeContextOptions,
  type TapeSelector,
  type TapeSidecar,
} from "./tape_context.ts";
export { Environment, Process, resolveInWorkspace, type SpawnOptions } from "./environment.ts";
export { registerConfigSection, type SectionValidator } from "./configure.ts";
