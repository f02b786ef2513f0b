/**
 * Turn state, prompts and the result of one turn.
 *
 * @module
 */
import type { Envelope } from "./envelope.ts";

/** An OpenAI-style multimodal content part, e.g. `{ type: "text", text }`. */
export type ContentPart = Record<string, unknown>;

/** A prompt: text, or a list of content parts. */
export type Prompt = string | ContentPart[];

/** The mutable state shared by every stage of one turn; fresh each turn. */
export type TurnState = Record<string, unknown>;

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
