/**
 * Private: the turn stages between the session and the model: the turn state (`loadState`), the
 * prompt (`buildPrompt`), and steering a message into a running turn.
 *
 * @module
 */
import type { SteeringInbox } from "./channel.ts";
import type { Environment } from "./environment.ts";
import { contentOf, defaultSessionId, type Envelope } from "./envelope.ts";
import type { HookRuntime } from "./hook_runtime.ts";
import type { Prompt, TurnState } from "./turn.ts";
import type { TurnHost } from "./_turn_host.ts";

/** The session id: the hook's answer, else the message's `sessionId`, else `channel:chatId`. */
export async function resolveTurnSession(hooks: HookRuntime, message: Envelope): Promise<string> {
  const value = await hooks.call("resolveSession", { message });
  return String(value || defaultSessionId(message));
}

/**
 * The session's environment, asked of `provideEnvironment` once per session and cached until
 * the running scope exits.
 */
export function sessionEnvironment(host: TurnHost, sessionId: string): Promise<Environment | null> {
  return host.resources.environments.get(
    sessionId,
    () => host.hooks.call("provideEnvironment", { sessionId, workspace: host.workspace }),
  );
}

/** A fresh turn state of `host`: runtime keys, the session environment, then `loadState`. */
export async function turnState(
  host: TurnHost,
  message: Envelope,
  sessionId: string,
): Promise<TurnState> {
  const base = {
    workspace: host.workspace,
    steeringInbox: host.resources.steeringInbox,
    environment: await sessionEnvironment(host, sessionId),
  };
  return await buildTurnState(host.hooks, base, message, sessionId);
}

/** What a fresh turn state starts from. */
export interface TurnStateBase {
  /** The framework's workspace. */
  workspace: string;
  /** The steering inbox of the running scope, or null. */
  steeringInbox: SteeringInbox | null;
  /** The session's environment, or null. */
  environment: Environment | null;
}

/** A fresh turn state: runtime keys, the session environment, then merged `loadState` results. */
export async function buildTurnState(
  hooks: HookRuntime,
  base: TurnStateBase,
  message: Envelope,
  sessionId: string,
): Promise<TurnState> {
  const state: TurnState = {
    _runtime_workspace: String(base.workspace),
    _runtime_steering_inbox: base.steeringInbox,
  };
  if (base.environment !== null) state._runtime_environment = base.environment;
  const results = await hooks.call("loadState", { message, sessionId });
  for (let i = results.length - 1; i >= 0; i--) {
    const value = results[i];
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      Object.assign(state, value);
    }
  }
  return state;
}

/** The prompt: `buildPrompt`'s answer, or the message content when it is empty. */
export async function buildTurnPrompt(
  hooks: HookRuntime,
  message: Envelope,
  sessionId: string,
  state: TurnState,
): Promise<Prompt> {
  const prompt = await hooks.call("buildPrompt", { message, sessionId, state });
  if (!prompt || (Array.isArray(prompt) && prompt.length === 0)) return contentOf(message);
  return prompt as Prompt;
}

/** Queues `message` into `inbox` for a running turn (with the reason in its context). */
export async function steerInto(
  inbox: SteeringInbox,
  args: { message: Envelope; sessionId: string; state: TurnState; reason?: string | null },
): Promise<void> {
  if (!("session_id" in args.state)) args.state.session_id = args.sessionId;
  const { message, reason } = args;
  if (reason !== null && reason !== undefined && typeof message === "object" && message !== null) {
    try {
      const current = (message as { context?: unknown }).context;
      const context = typeof current === "object" && current !== null ? current : {};
      (message as { context: unknown }).context = { ...context, steering_reason: reason };
    } catch {
      // frozen envelopes keep their context
    }
  }
  await inbox.enqueueMessage(message, args.state);
}
