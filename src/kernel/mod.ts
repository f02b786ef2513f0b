/**
 * The microkernel: the framework and its turn pipeline, hook specs and dispatch, plugins,
 * envelopes and channel messages, turn state keys, stream events, errors, the channel and
 * environment contracts, tape context selection and configuration helpers.
 *
 * @module
 */
export { type CliApp, type CliHost, createCliApp } from "./cli_app.ts";
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
  type HookImplementation,
  type HookImplOptions,
  type Plugin,
  type PluginHooks,
  PluginManager,
  type PluginStatus,
  type PluginTool,
} from "./plugin.ts";
export {
  type BroadcastHook,
  type BroadcastSyncHook,
  type DispatchHook,
  type FirstResultHook,
  type FirstResultSyncHook,
  HOOK_SPECS,
  type HookArgs,
  type HookDispatch,
  type HookKind,
  type HookKinds,
  type HookName,
  type HookResult,
  type HookSignatures,
  type HookSpec,
  type HooksWhere,
  type HookValue,
  isHookName,
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
  type DenyDecision,
  type FinishDecision,
  isDecisionLike,
  type LlmDecision,
  type ProceedDecision,
  type ReplaceDecision,
  toLlmCallDecision,
  type ToolDecision,
  toToolCallDecision,
} from "./decisions.ts";
export {
  contentOf,
  defaultSessionId,
  type Envelope,
  fieldOf,
  normalizeEnvelope,
  sessionKey,
  unpackBatch,
  writeSessionId,
  type WriteSessionIdMode,
} from "./envelope.ts";
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
  streamOf,
  StreamState,
} from "./stream.ts";
export {
  type StreamInboundOptions,
  type TurnDoneEvent,
  type TurnEvent,
  type TurnStreamHost,
} from "./turn_stream.ts";
export type {
  DeltaPayload,
  ErrorPayload,
  FinalPayload,
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
export { type InboundMessage, inboundOf } from "./inbound.ts";
export type { StatefulHook, StatefulHooks, WithTurnState } from "./plugin_state.ts";
export { BubError, type BubErrorDict, ErrorKind, toErrorKind } from "./errors.ts";
export { isModelOptions, type ModelChoice, type ModelOptions } from "./model_options.ts";
export {
  type AdmitDecision,
  admitDecision,
  type Channel,
  type ChannelContract,
  type ChannelRouter,
  isAdmitDecision,
  type MessageHandler,
  type SteeringInbox,
  type TurnAdmissionAction,
  type TurnSnapshot,
} from "./channel.ts";
export {
  LAST_ANCHOR,
  SIDECAR_TAPE_MARKER,
  sidecarTapeName,
  TapeContext,
  type TapeContextOptions,
  type TapeSelector,
  type TapeSidecar,
} from "./tape_context.ts";
export { Environment, Process, resolveInWorkspace, type SpawnOptions } from "./environment.ts";
export {
  findDotenv,
  loadConfigFile,
  loadDotenv,
  mergeConfig,
  parseDotenv,
  registerConfigSection,
  saveConfigFile,
  type SectionValidator,
  validateConfig,
} from "./configure.ts";
export { contextStrOf, formatContext } from "./channel_message.ts";
