/**
 * The agent: the agent loop, the model runner, the model client contract and the provider
 * clients (OpenAI-compatible, Anthropic, OpenAI Responses).
 *
 * @module
 */
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
} from "./model_client.ts";
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
} from "./providers.ts";
export { isContextLengthError } from "./context_length.ts";
export {
  Agent,
  type AgentHost,
  type AgentOptions,
  type AgentRunSettings,
  type CommandRunArgs,
  type RunStreamOptions,
  workspaceFromState,
} from "./agent.ts";
export {
  agentLoop,
  type AgentLoopArgs,
  MAX_AUTO_HANDOFF_RETRIES,
  type StepRunner,
} from "./agent_loop.ts";
export { type ModelRunArgs, ModelRunner, type ModelRunnerSettings } from "./model_runner.ts";
export { newRunId } from "./run_id.ts";
