/**
 * Turn state, prompts and the result of one turn.
 *
 * @module
 */
import type { Envelope } from "./envelope.ts";
import type { Environment } from "./environment.ts";

/**
 * An OpenAI-style multimodal content part, e.g. `{ type: "text", text }`.
 *
 * @example
 * ```ts
 * import type { ContentPart } from "@bub/core/kernel";
 * const image: ContentPart = { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } };
 * ```
 */
export type ContentPart = Record<string, unknown>;

/**
 * A prompt: text, or a list of content parts.
 *
 * @example
 * ```ts
 * import { definePlugin } from "@bub/core";
 * import type { Prompt } from "@bub/core/kernel";
 * const withPicture = definePlugin({
 *   name: "picture",
 *   buildPrompt: (): Prompt => [
 *     { type: "text", text: "What is in this picture?" },
 *     { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
 *   ],
 * });
 * ```
 */
export type Prompt = string | ContentPart[];

/**
 * The mutable state shared by every stage of one turn; fresh each turn. A map with open keys
 * (any key reads as `unknown`) and Bub's reserved keys declared.
 *
 * An application (or a plugin published on npm) types its own keys by declaration merging:
 *
 * ```ts ignore
 * declare module "@bub/core" {
 *   interface TurnState {
 *     "acme.budget"?: number;
 *   }
 * }
 * ```
 *
 * JSR rejects `declare module` in published packages: a plugin published there types its state
 * through `definePlugin<MyState>()` instead.
 *
 * @example
 * ```ts
 * import { definePlugin, type TurnState } from "@bub/core";
 * const plugin = definePlugin({
 *   name: "model-per-chat",
 *   loadState: ({ sessionId }): TurnState => ({ model: sessionId.startsWith("tg:") ? "openai:gpt-4o-mini" : null }),
 * });
 * ```
 */
export interface TurnState {
  /** Any other key, e.g. one a plugin's `loadState` returned. */
  [key: string]: unknown;
  /** `session_id`: the resolved session id. */
  session_id?: string | null;
  /** `context`: the message's context string. */
  context?: string;
  /** `model`: the per-session model override. */
  model?: string | null;
  /** `reasoning_effort`: the per-session reasoning effort. */
  reasoning_effort?: string | null;
  /** `_runtime_workspace`: the workspace path as a string (a `file:` URL is accepted too). */
  _runtime_workspace?: string | URL;
  /** `_runtime_environment`: the session's `Environment`. */
  _runtime_environment?: Environment;
  /** `_runtime_steering_inbox`: the active `SteeringInbox`, or null. */
  _runtime_steering_inbox?: unknown;
  /** `_runtime_thread_id`: the preferred steering key. */
  _runtime_thread_id?: unknown;
  /** `_runtime_agent`: the agent that runs this turn (an `Agent` of the builtin). */
  _runtime_agent?: unknown;
  /** `_runtime_tape`: the tape of the current tool call (a `Tape` of the builtin). */
  _runtime_tape?: unknown;
}

/**
 * `state._runtime_workspace`: the workspace path as a string.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WORKSPACE_STATE_KEY } from "@bub/core";
 * assert.equal(WORKSPACE_STATE_KEY, "_runtime_workspace");
 * ```
 */
export const WORKSPACE_STATE_KEY = "_runtime_workspace";
/**
 * `state._runtime_environment`: the session's `Environment`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ENVIRONMENT_STATE_KEY } from "@bub/core";
 * assert.equal(ENVIRONMENT_STATE_KEY, "_runtime_environment");
 * ```
 */
export const ENVIRONMENT_STATE_KEY = "_runtime_environment";
/**
 * `state._runtime_agent`: the agent that runs this turn.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { AGENT_STATE_KEY } from "@bub/core";
 * assert.equal(AGENT_STATE_KEY, "_runtime_agent");
 * ```
 */
export const AGENT_STATE_KEY = "_runtime_agent";
/**
 * `state._runtime_tape`: the tape of the current tool call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TAPE_STATE_KEY } from "@bub/core";
 * assert.equal(TAPE_STATE_KEY, "_runtime_tape");
 * ```
 */
export const TAPE_STATE_KEY = "_runtime_tape";
/**
 * `state._runtime_steering_inbox`: the active steering inbox, or null.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { STEERING_INBOX_STATE_KEY } from "@bub/core";
 * assert.equal(STEERING_INBOX_STATE_KEY, "_runtime_steering_inbox");
 * ```
 */
export const STEERING_INBOX_STATE_KEY = "_runtime_steering_inbox";
/**
 * `state._runtime_thread_id`: the preferred steering key.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { THREAD_ID_STATE_KEY } from "@bub/core";
 * assert.equal(THREAD_ID_STATE_KEY, "_runtime_thread_id");
 * ```
 */
export const THREAD_ID_STATE_KEY = "_runtime_thread_id";
/**
 * `state.session_id`: the resolved session id.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SESSION_ID_STATE_KEY } from "@bub/core";
 * assert.equal(SESSION_ID_STATE_KEY, "session_id");
 * ```
 */
export const SESSION_ID_STATE_KEY = "session_id";
/**
 * `state.context`: the message's context string.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CONTEXT_STATE_KEY } from "@bub/core";
 * assert.equal(CONTEXT_STATE_KEY, "context");
 * ```
 */
export const CONTEXT_STATE_KEY = "context";
/**
 * `state.model`: the per-session model override.
 *
 * @example
 * ```ts
 * import { definePlugin, MODEL_STATE_KEY } from "@bub/core";
 * const pinModel = definePlugin({
 *   name: "pin-model",
 *   loadState: () => ({ [MODEL_STATE_KEY]: "openai:gpt-4o-mini" }),
 * });
 * ```
 */
export const MODEL_STATE_KEY = "model";
/**
 * `state.reasoning_effort`: the per-session reasoning effort.
 *
 * @example
 * ```ts
 * import { definePlugin, REASONING_EFFORT_STATE_KEY } from "@bub/core";
 * const thinkHard = definePlugin({
 *   name: "think-hard",
 *   loadState: () => ({ [REASONING_EFFORT_STATE_KEY]: "high" }),
 * });
 * ```
 */
export const REASONING_EFFORT_STATE_KEY = "reasoning_effort";

/**
 * What `processInbound` returns.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { definePlugin, type TurnResult } from "@bub/core";
 * import { KernelFramework } from "@bub/core/kernel";
 * const kernel = new KernelFramework({ loadDotenv: false });
 * kernel.register(definePlugin({ name: "echo", runModel: ({ prompt }) => `echo: ${prompt}` }));
 * const result: TurnResult = await kernel.processInbound({ channel: "cli", chatId: "local", content: "hi" });
 * assert.equal(result.sessionId, "cli:local");
 * assert.equal(result.modelOutput, "echo: hi");
 * ```
 */
export interface TurnResult {
  /** The resolved session id. */
  readonly sessionId: string;
  /** The prompt given to the model stage. */
  readonly prompt: Prompt;
  /** The model output. */
  readonly modelOutput: string;
  /** The rendered outbound envelopes, in dispatch order. */
  readonly outbounds: Envelope[];
  /** The turn state. */
  readonly state: TurnState;
}
