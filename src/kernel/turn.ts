/**
 * Turn state, prompts and the result of one turn.
 *
 * @module
 */
import type { Envelope } from "./envelope.ts";
import type { Environment } from "./environment.ts";

/** An OpenAI-style multimodal content part, e.g. `{ type: "text", text }`. */
export type ContentPart = Record<string, unknown>;

/** A prompt: text, or a list of content parts. */
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

/** `state._runtime_workspace`: the workspace path as a string. */
export const WORKSPACE_STATE_KEY = "_runtime_workspace";
/** `state._runtime_environment`: the session's `Environment`. */
export const ENVIRONMENT_STATE_KEY = "_runtime_environment";
/** `state._runtime_agent`: the agent that runs this turn. */
export const AGENT_STATE_KEY = "_runtime_agent";
/** `state._runtime_tape`: the tape of the current tool call. */
export const TAPE_STATE_KEY = "_runtime_tape";
/** `state._runtime_steering_inbox`: the active steering inbox, or null. */
export const STEERING_INBOX_STATE_KEY = "_runtime_steering_inbox";
/** `state._runtime_thread_id`: the preferred steering key. */
export const THREAD_ID_STATE_KEY = "_runtime_thread_id";
/** `state.session_id`: the resolved session id. */
export const SESSION_ID_STATE_KEY = "session_id";
/** `state.context`: the message's context string. */
export const CONTEXT_STATE_KEY = "context";
/** `state.model`: the per-session model override. */
export const MODEL_STATE_KEY = "model";
/** `state.reasoning_effort`: the per-session reasoning effort. */
export const REASONING_EFFORT_STATE_KEY = "reasoning_effort";

/** What `processInbound` returns. */
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
