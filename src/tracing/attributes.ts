/**
 * The OpenTelemetry attribute names and values Bub's spans use: the GenAI semantic conventions
 * (`gen_ai.*`), `error.type`, and Bub's own `bub.*` names. Defined here rather than imported from
 * `@opentelemetry/semantic-conventions` (10 MB, and the GenAI names live in its incubating entry).
 *
 * @example Reading the model of a `chat` span
 * ```ts ignore
 * import { GEN_AI_REQUEST_MODEL } from "./attributes.ts";
 * const attributes: Record<string, unknown> = { [GEN_AI_REQUEST_MODEL]: "gpt-4o" };
 * console.assert(attributes["gen_ai.request.model"] === "gpt-4o");
 * ```
 *
 * @module
 */

/** The operation: {@link GEN_AI_OPERATION_CHAT}, `invoke_agent` or `execute_tool`. */
export const GEN_AI_OPERATION_NAME = "gen_ai.operation.name";
/** The provider, e.g. `openai`, `anthropic`, `openrouter` (Bub's `provider:` prefix). */
export const GEN_AI_PROVIDER_NAME = "gen_ai.provider.name";
/** The model asked for (without the provider prefix). */
export const GEN_AI_REQUEST_MODEL = "gen_ai.request.model";
/** The `max_tokens` of the request. */
export const GEN_AI_REQUEST_MAX_TOKENS = "gen_ai.request.max_tokens";
/** The model that answered (after fallbacks). */
export const GEN_AI_RESPONSE_MODEL = "gen_ai.response.model";
/** Why the model stopped, one entry per choice (e.g. `["stop"]`, `["tool_calls"]`). */
export const GEN_AI_RESPONSE_FINISH_REASONS = "gen_ai.response.finish_reasons";
/** Input (prompt) tokens. */
export const GEN_AI_USAGE_INPUT_TOKENS = "gen_ai.usage.input_tokens";
/** Output (completion) tokens. */
export const GEN_AI_USAGE_OUTPUT_TOKENS = "gen_ai.usage.output_tokens";
/** The conversation: Bub's session id. */
export const GEN_AI_CONVERSATION_ID = "gen_ai.conversation.id";
/** The agent's name (`bub`). */
export const GEN_AI_AGENT_NAME = "gen_ai.agent.name";
/** The tool's name as the model called it. */
export const GEN_AI_TOOL_NAME = "gen_ai.tool.name";
/** The tool call id the model gave. */
export const GEN_AI_TOOL_CALL_ID = "gen_ai.tool.call.id";
/** The tool type (`function`). */
export const GEN_AI_TOOL_TYPE = "gen_ai.tool.type";
/** Opt-in content: the chat history sent (JSON, GenAI message parts). */
export const GEN_AI_INPUT_MESSAGES = "gen_ai.input.messages";
/** Opt-in content: the answer (JSON, GenAI message parts). */
export const GEN_AI_OUTPUT_MESSAGES = "gen_ai.output.messages";
/** Opt-in content: the system prompt (JSON, GenAI message parts). */
export const GEN_AI_SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions";
/** Opt-in content: a tool call's arguments (JSON). */
export const GEN_AI_TOOL_CALL_ARGUMENTS = "gen_ai.tool.call.arguments";
/** Opt-in content: a tool call's result (JSON). */
export const GEN_AI_TOOL_CALL_RESULT = "gen_ai.tool.call.result";
/** The class of a failure: a `BubError` kind, an error name, or `cancelled`. */
export const ERROR_TYPE = "error.type";
/** The hook a `hook <name>` span ran (camelCase, e.g. `buildPrompt`). */
export const BUB_HOOK_NAME = "bub.hook.name";
/** The channel of the inbound message of an `invoke_agent` span. */
export const BUB_CHANNEL = "bub.channel";

/** `gen_ai.operation.name` of a model call. */
export const GEN_AI_OPERATION_CHAT = "chat";
/** `gen_ai.operation.name` of a turn. */
export const GEN_AI_OPERATION_INVOKE_AGENT = "invoke_agent";
/** `gen_ai.operation.name` of a tool call. */
export const GEN_AI_OPERATION_EXECUTE_TOOL = "execute_tool";
/** `gen_ai.agent.name` of Bub's turns. */
export const BUB_AGENT_NAME = "bub";
/** `error.type` of a cancelled operation. */
export const ERROR_TYPE_CANCELLED = "cancelled";

/** The environment variable that opts in to recording message contents. */
export const CAPTURE_MESSAGE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";
