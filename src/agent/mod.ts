/**
 * The agent: the agent loop, the model runner, the model client contract and the provider
 * clients (OpenAI-compatible, Anthropic, OpenAI Responses).
 *
 * @example A turn against the mock LLM server
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore, Tape } from "@bub/core";
 * import { ModelRunner, ProviderModelClient } from "@bub/core/agent";
 * import { MockLlmServer } from "@bub/core/testing";
 * await using server = await MockLlmServer.start({ script: [{ text: "hello" }] });
 * const client = new ProviderModelClient({ apiKey: "test", apiBase: server.url });
 * const tape = new Tape({ store: new InMemoryTapeStore() }).scoped("t");
 * await tape.ensureBootstrapAnchor();
 * const runner = new ModelRunner(client, null, { model: "openai:gpt-4o" });
 * let text = "";
 * for await (const event of runner.run({ tape, model: "openai:gpt-4o", tools: [], systemPrompt: "", prompt: "hi", state: {} })) {
 *   if (event.kind === "text") text += event.data.delta;
 * }
 * assert.equal(text, "hello");
 * ```
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
  type CloudSettings,
  type FetchLike,
  lookupProviderSetting,
  type ModelId,
  parseModelId,
  PROVIDER_PRESETS,
  ProviderModelClient,
  type ProviderPreset,
  providerPreset,
  type ProviderProtocol,
  type ProviderSdk,
  type ProviderSetting,
  type ProviderSettings,
} from "./providers/provider_model_client.ts";
export { isContextLengthError } from "./context_length.ts";
export {
  Agent,
  type AgentHost,
  type AgentOptions,
  type AgentRunSettings,
  type CommandRunArgs,
  type ResumeTurnOptions,
  type RunStreamOptions,
  workspaceFromState,
} from "./agent.ts";
export {
  APPROVAL_INDEX_SESSION,
  type ApprovalDecision,
  type ApprovalGrant,
  type ApprovalRequest,
  askingSessions,
  pendingApprovals,
  readApprovals,
  type SessionApprovals,
} from "./approvals.ts";
export { type CallOutcome, findSuspendedTurn, type SuspendedTurn } from "./turn_resume.ts";
export {
  agentLoop,
  type AgentLoopArgs,
  MAX_AUTO_HANDOFF_RETRIES,
  type StepRunner,
} from "./agent_loop.ts";
export { type ModelRunArgs, ModelRunner, type ModelRunnerSettings } from "./model_runner.ts";
export { newRunId } from "./run_id.ts";
export {
  INTERRUPTED_RESULT,
  type InterruptedTurnPlan,
  planInterruptedTurn,
  type PlanOptions,
  type ResumeCall,
} from "./interrupted_turn.ts";
export { TURN_RESUMED } from "./turn_recovery.ts";
