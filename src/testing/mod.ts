/**
 * Test doubles for code built on `@bub/core`: a scripted model plugin and a local mock LLM
 * server speaking the OpenAI chat-completions, OpenAI Responses and Anthropic messages wire
 * formats.
 *
 * @example A framework that answers from a script
 * ```ts
 * import assert from "node:assert/strict";
 * import { BubFramework } from "@bub/core";
 * import { ScriptedModel } from "@bub/core/testing";
 * const bub = new BubFramework();
 * bub.register(new ScriptedModel(["first answer"]));
 * const result = await bub.processInbound({ channel: "cli", chatId: "local", content: "hi" });
 * assert.equal(result.modelOutput, "first answer");
 * ```
 *
 * @module
 */
export { ScriptedModel, type ScriptedReply } from "./scripted_model.ts";
export {
  CONTEXT_LENGTH_MESSAGE,
  type MockErrorReply,
  MockLlmServer,
  type MockLlmServerOptions,
  type MockProtocol,
  type MockReply,
  mockReply,
  type MockRequest,
  type MockResponder,
  type MockToolCall,
  type MockUsage,
} from "./mock_llm_server.ts";
export { demoResponder } from "./demo_responder.ts";
export {
  MemoryChannel,
  type MemoryChannelOptions,
  type MemoryInbound,
  type RecordedStream,
} from "../channels/memory_channel.ts";
export { FakeTelegramServer } from "./fake_telegram.ts";
export {
  FakeSlackServer,
  type FakeSlackSocket,
  type MessageEventOptions,
  type PostedMessage,
  type SlackButton,
  type SlackDeliveryOptions,
  type SocketEnvelope,
  type SocketSendOptions,
} from "./fake_slack.ts";
export { FakeDiscordServer, type FakeDiscordUser } from "./fake_discord.ts";
export { type FakeApiCall, FakeCallLog } from "./_fake_calls.ts";
export {
  FakeGitHubServer,
  type FakeGitHubUser,
  type GitHubDeliveryOptions,
} from "./fake_github.ts";
export {
  type FakeTeamsActivity,
  type FakeTeamsButton,
  FakeTeamsServer,
  type FakeTeamsUpload,
  type TeamsDeliveryOptions,
} from "./fake_teams.ts";
export type {
  FakeTeamsUser,
  TeamsButtonData,
  TeamsConversationOptions,
} from "./_teams_activities.ts";
export {
  FakeLinearServer,
  type FakeLinearUser,
  type LinearDeliveryOptions,
} from "./fake_linear.ts";
export type { FakePutFile } from "./_fake_files.ts";
export {
  type FakeGChatMessage,
  FakeGChatServer,
  type FakeGChatUser,
  type GChatMessageOptions,
} from "./fake_gchat.ts";
export type {
  FakeChat,
  FakeFile,
  FakeMessageOptions,
  FakeTelegramCall,
  FakeTelegramServerOptions,
  FakeUser,
  WaitForCallsOptions,
} from "./_fake_telegram_types.ts";
export {
  type FakeCommandHandler,
  type FakeCommandResult,
  FakeEnvironment,
  type FakeSpawn,
} from "./fake_environment.ts";
