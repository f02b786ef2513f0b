/**
 * `@bub/core`: Bub, the hook-first agent runtime.
 *
 * Every inbound message runs one turn through hook stages — `resolveSession → loadState →
 * buildPrompt → runModel(Stream) → saveState → renderOutbound → dispatchOutbound` — and every stage
 * is a hook that plugins implement. Plugins registered later win.
 *
 * @example An echo plugin
 * ```ts
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
 * console.assert(result.modelOutput === "[echo] hi");
 * ```
 *
 * @module
 */
export { BubFramework } from "./src/builtin/framework.ts";
export { type BuiltinPlugin, createBuiltinPlugin } from "./src/builtin/plugin.ts";
export type { BubHost } from "./src/builtin/host.ts";
export { type BubFrameworkOptions, type DemoModel } from "./src/builtin/framework.ts";
export { BuiltinRuntime, type BuiltinRuntimeOptions } from "./src/builtin/runtime.ts";
export { CliExit, type CliOutput } from "./src/builtin/cli_io.ts";
export { LinePrompter, PromptAborted, type Prompter } from "./src/builtin/onboard.ts";
export { type CliApp, type CliHost, createCliApp } from "./src/kernel/cli_app.ts";
export type { ConfigLookup } from "./src/skills/body.ts";
export type { QuitSession } from "./src/tools/builtin/session.ts";
export {
  type FrameworkOptions,
  KernelFramework,
  type LoadHooksOptions,
  type PluginSource,
  type ProcessInboundOptions,
} from "./src/kernel/framework.ts";
export { type ExitCallback, RunningScope } from "./src/kernel/running_scope.ts";
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
} from "./src/kernel/plugin.ts";
export {
  HOOK_SPECS,
  type HookKind,
  type HookName,
  type HookSignatures,
  type HookSpec,
  isHookName,
  type MaybePromise,
  type Resource,
} from "./src/kernel/hook_specs.ts";
export { HookRuntime, type NotifyErrorArgs, type RunModelArgs } from "./src/kernel/hook_runtime.ts";
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
} from "./src/kernel/agent_hooks.ts";
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
} from "./src/kernel/decisions.ts";
export {
  contentOf,
  defaultSessionId,
  type Envelope,
  fieldOf,
  normalizeEnvelope,
  unpackBatch,
} from "./src/kernel/envelope.ts";
export {
  ChannelMessage,
  type ChannelMessageInit,
  MediaItem,
  type MediaItemInit,
  type MediaType,
  type MessageKind,
} from "./src/kernel/channel_message.ts";
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
} from "./src/kernel/turn.ts";
export {
  AsyncStreamEvents,
  type AsyncStreamEventsOptions,
  type StreamEvent,
  type StreamEventKind,
  streamOf,
  StreamState,
} from "./src/kernel/stream.ts";
export {
  type StreamInboundOptions,
  type TurnEvent,
  type TurnStreamHost,
} from "./src/kernel/turn_stream.ts";
export { BubError, type BubErrorDict, ErrorKind, toErrorKind } from "./src/kernel/errors.ts";
export { isModelOptions, type ModelChoice, type ModelOptions } from "./src/kernel/model_options.ts";
export {
  type AdmitDecision,
  admitDecision,
  type Channel as ChannelContract,
  type ChannelRouter,
  isAdmitDecision,
  type MessageHandler,
  type SteeringInbox,
  type TurnAdmissionAction,
  type TurnSnapshot,
} from "./src/kernel/channel.ts";
export {
  LAST_ANCHOR,
  SIDECAR_TAPE_MARKER,
  sidecarTapeName,
  TapeContext,
  type TapeContextOptions,
  type TapeSelector,
  type TapeSidecar,
} from "./src/kernel/tape_context.ts";
export {
  Environment,
  Process,
  resolveInWorkspace,
  type SpawnOptions,
} from "./src/kernel/environment.ts";
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
} from "./src/kernel/configure.ts";
export { InMemorySteeringInbox } from "./src/channels/steering_inbox.ts";
export {
  type ChatContentPart,
  type ChatMessage,
  type ChatTool,
  type ChatToolCall,
  type ChatUsage,
  MODEL_CLIENT_SPECIFICATION_VERSION,
  type ModelClient,
  type ModelEvent,
  type ModelFinishReason,
  type ModelRequest,
  type ModelStreamOptions,
} from "./src/agent/model_client.ts";
export {
  type FetchLike,
  lookupProviderSetting,
  type ModelId,
  parseModelId,
  PROVIDER_PRESETS,
  ProviderModelClient,
  type ProviderPreset,
  providerPreset,
  type ProviderProtocol,
  type ProviderSetting,
  type ProviderSettings,
} from "./src/agent/providers.ts";
export { isContextLengthError } from "./src/agent/context_length.ts";
export {
  type ContextToolOptions,
  defineTool,
  type JsonSchema,
  modelToolName,
  modelTools,
  type PlainToolOptions,
  snakeCaseName,
  type StandardSchemaLike,
  Tool,
  type ToolArgumentIssue,
  ToolArgumentsError,
  type ToolContext,
  type ToolOptionsBase,
  type ToolParameters,
  type ToolSchema,
} from "./src/tools/tool.ts";
export {
  defaultToolRegistry,
  type ResolveToolNamesOptions,
  ToolRegistry,
} from "./src/tools/registry.ts";
export {
  type ExecuteToolsOptions,
  normalizeToolError,
  type ToolExecution,
  ToolExecutor,
  type ToolInvocation,
} from "./src/tools/executor.ts";
export {
  currentToolCallReporter,
  formatToolArguments,
  reportToolCall,
  type ToolCallReporter,
  withToolCallReporter,
} from "./src/tools/reporter.ts";
export { renderToolsPrompt } from "./src/tools/prompt.ts";
export {
  LocalEnvironment,
  type LocalEnvironmentOptions,
} from "./src/environment/local_environment.ts";
export { LocalProcess } from "./src/environment/local_process.ts";
export { environmentFromState } from "./src/environment/from_state.ts";
export {
  ShellCommandError,
  ShellManager,
  type ShellManagerOptions,
  type ShellOutputOptions,
  type ShellRunOptions,
  type ShellStartOptions,
} from "./src/environment/shell_manager.ts";
export { SHELL_RUNTIME_CLOSED, ShellScope } from "./src/environment/shell_scope.ts";
export {
  DEFAULT_SHELL_TIMINGS,
  ManagedShell,
  type ShellTimings,
} from "./src/environment/managed_shell.ts";
export type {
  DriverChild,
  DriverSpawnRequest,
  GroupSignal,
  ProcessDriver,
  SignalOutcome,
} from "./src/environment/process_driver.ts";
export {
  anchorEntry,
  AsyncTapeStoreAdapter,
  buildQuery,
  type ChatMessage as TapeChatMessage,
  contextVisible,
  createEntry,
  DEFAULT_SPILL_THRESHOLD,
  defaultTapeContext,
  type EnqueueResult,
  errorEntry,
  eventEntry,
  FileTapeStore,
  type FileTapeStoreOptions,
  ForkTapeStore,
  type ForkTapeStoreOptions,
  formatTapeInfo,
  type HandoffOptions,
  inboxChannel,
  type InboxMessage,
  InMemoryTapeStore,
  isAsyncTapeStore,
  latestEvents,
  messageEntry,
  PostgresInbox,
  PostgresLeader,
  PostgresTapeStore,
  type PostgresTapeStoreOptions,
  readSpill,
  type ReadSpillOptions,
  type RecordChatOptions,
  redactPayload,
  selectMessages,
  sessionTapeName,
  SPILL_CHUNK_BYTES,
  SPILL_READ_MAX_CHUNKS,
  SPILL_SIDECAR,
  spillAfterToolCall,
  type SpillContext,
  type SpillHookArgs,
  spillPreview,
  type SpillSettings,
  SpillStore,
  spillText,
  splitUtf8,
  SqliteTapeStore,
  type SqliteTapeStoreOptions,
  type SyncTapeStore,
  systemEntry,
  Tape,
  type TapeEntry,
  type TapeInfo,
  type TapeLease,
  type TapeMeta,
  type TapeOptions,
  TapeQuery,
  type TapeQueryFields,
  type TapeStore,
  toAsyncTapeStore,
  toolCallEntry,
  toolResultEntry,
  UnavailableTapeStore,
} from "./src/tape/mod.ts";
export { Channel, type ChannelAdmitArgs, Interface, Lifecycle } from "./src/channels/channel.ts";
export {
  type ChannelClock,
  type ChannelFramework,
  ChannelManager,
  type ChannelManagerOptions,
  type ListenOptions,
} from "./src/channels/manager.ts";
export {
  MemoryChannel,
  type MemoryChannelOptions,
  type MemoryInbound,
  type RecordedStream,
} from "./src/channels/memory_channel.ts";
export {
  type BuiltinToolDeps,
  createBuiltinTools,
  isKeywordOnlyTool,
  registerBuiltinTools,
} from "./src/tools/builtin/mod.ts";
export {
  COMMAND_RUN_ID,
  runCommaCommand,
  type RunCommaCommandOptions,
} from "./src/builtin/comma_command.ts";
export {
  MAX_MEDIA_BYTES,
  NO_ACCESS_MESSAGE,
  parseAllowList,
  splitMessageText,
  TELEGRAM_MESSAGE_LIMIT,
  TelegramChannel,
  type TelegramChannelOptions,
  type TypingLifespan,
} from "./src/channels/telegram/telegram_channel.ts";
export {
  CliChannel,
  type CliChannelOptions,
  type CliTurnLifespan,
  type TapeInfo as CliTapeInfo,
} from "./src/channels/cli/cli_channel.ts";
export {
  type MarkdownProgress,
  MarkdownStream,
  type MarkdownToken,
  renderMarkdown,
  type RenderMarkdownOptions,
  renderTokens,
  type TextStyler,
  visibleWidth,
} from "./src/channels/cli/markdown.ts";
export {
  Agent,
  type AgentOptions,
  type AgentRunSettings,
  type CommandRunArgs,
  type RunStreamOptions,
  workspaceFromState,
} from "./src/agent/agent.ts";
export {
  agentLoop,
  type AgentLoopArgs,
  MAX_AUTO_HANDOFF_RETRIES,
  type StepRunner,
} from "./src/agent/agent_loop.ts";
export {
  type ModelRunArgs,
  ModelRunner,
  type ModelRunnerSettings,
} from "./src/agent/model_runner.ts";
export { newRunId } from "./src/agent/run_id.ts";
export {
  type AgentSettings,
  type ChannelSettings,
  DEFAULT_MODEL,
  defaultConfigFile,
  type EnvMap,
  expandHome,
  getConfigValue,
  loadAgentSettings,
  loadChannelSettings,
  loadSpillSettings,
  loadTelegramSettings,
  type ProviderValue,
  readDotenvFile,
  registerBuiltinConfigSections,
  resolveBubHome,
  type SettingsSources,
  type SpillSettings as SpillSettingsSection,
  type TelegramSettings,
} from "./src/builtin/settings.ts";
export {
  currentRuntimeCommand,
  renderSkillBody,
  type RenderSkillOptions,
  renderSkillText,
} from "./src/skills/body.ts";
export {
  builtinSkillsDir,
  discoverSkills,
  type DiscoverSkillsOptions,
  LEGACY_SKILLS_DIR,
  PROJECT_SKILLS_DIR,
  type SkillRoot,
  skillRoots,
  type SkillRootsOptions,
} from "./src/skills/discovery.ts";
export { parseFrontmatter, stripFrontmatter } from "./src/skills/frontmatter.ts";
export {
  filterAllowedSkills,
  renderSkillsPrompt,
  skillReferences,
  skillsPromptFor,
  type SkillsPromptForOptions,
  type SkillsPromptOptions,
} from "./src/skills/prompt.ts";
export {
  MAX_SKILL_DESCRIPTION_LENGTH,
  MAX_SKILL_NAME_LENGTH,
  readSkill,
  type Skill,
  SKILL_FILE_NAME,
  SKILL_NAME_PATTERN,
  skillFrontmatterProblem,
  type SkillSource,
} from "./src/skills/skill.ts";
export { contextStrOf, formatContext } from "./src/kernel/channel_message.ts";
