/**
 * The builtin turn hooks: `loadState`, `buildPrompt`, `runModelStream`, `saveState`,
 * `systemPrompt`, `provideModelOptions` and unknown-tool recovery in `beforeToolCall`.
 *
 * @module
 */
import { type ToolCall, ToolCallDecision } from "../kernel/agent_hooks.ts";
import { TURN_ORIGIN_STATE_KEY } from "../agent/approvals.ts";
import { modelToolName } from "../tools/tool.ts";
import {
  APPROVAL_RESUME_CONTEXT_KEY,
  APPROVAL_RESUME_STATE_KEY,
  isApprovalCommand,
  runApprovalCommand,
  runPendingNotice,
  SUSPENDED_STATE_KEY,
} from "./approval_commands.ts";
import { approvalAsk } from "./approval_rules.ts";
import { isRecoveryMessage, RECOVER_STATE_KEY } from "./turn_recovery_start.ts";
import { isRedelivered, redeliveredAnswer } from "../channels/cluster/redelivery.ts";
import { textEvents } from "../agent/text_events.ts";
import { type Envelope, fieldOf } from "../kernel/envelope.ts";
import { inboundOf } from "../kernel/inbound.ts";
import { contextStrOf } from "../kernel/channel_message.ts";
import type { ModelOptions } from "../kernel/model_options.ts";
import { AsyncStreamEvents } from "../kernel/stream.ts";
import type { Prompt, TurnState } from "../kernel/turn.ts";
import type { TapeEntry } from "../tape/entry.ts";
import { buildBuiltinPrompt } from "./build_prompt.ts";
import type { BuiltinRuntime } from "./runtime.ts";
import { builtinSystemPrompt } from "./system_prompt.ts";
import { recoverUnknownTool } from "./tool_guidance.ts";
import { SandboxedEnvironment } from "../environment/sandboxed_environment.ts";

/** A message's per-turn resource: entered by `loadState`, exited by `saveState`. */
export interface MessageLifespan {
  /** Runs when the turn's state is loaded. */
  enter?(): void | Promise<void>;
  /** Runs when the turn ends, with the error that ended it (if any). */
  exit?(error: unknown): void | Promise<void>;
  /** Runs when the turn ends (when there is no `exit`). */
  [Symbol.asyncDispose]?(): Promise<void>;
}

const entered = new WeakMap<object, MessageLifespan>();

function contextOf(message: Envelope): Readonly<Record<string, unknown>> {
  return inboundOf(message).context;
}

/** Recovers the latest `model_switch` and `reasoning_effort_switch` of a session tape. */
export function recoverSessionOverrides(entries: readonly TapeEntry[]): TurnState {
  const out: TurnState = {};
  for (let i = entries.length - 1; i >= 0; i--) {
    const payload = entries[i]!.payload as { name?: unknown; data?: Record<string, unknown> };
    if (!("model" in out) && payload.name === "model_switch") {
      out.model = (payload.data?.model || null) as string | null;
    }
    if (!("reasoning_effort" in out) && payload.name === "reasoning_effort_switch") {
      out.reasoning_effort = (payload.data?.reasoning_effort || null) as string | null;
    }
    if ("model" in out && "reasoning_effort" in out) break;
  }
  for (const key of Object.keys(out)) if (out[key] === null) delete out[key];
  return out;
}

/**
 * Exits the lifespan `loadState` entered for `message` (once): `exit(error)` when it has one,
 * else its async disposer. `saveState` calls it; so does the builtin `onError` for turns that
 * failed after `loadState` but before the model stage.
 */
export async function exitMessageLifespan(message: Envelope, error?: unknown): Promise<void> {
  if (typeof message !== "object" || message === null) return;
  const lifespan = entered.get(message);
  if (!lifespan) return;
  entered.delete(message);
  if (typeof lifespan.exit === "function") await lifespan.exit(error);
  else await lifespan[Symbol.asyncDispose]?.();
}

/** Creates the builtin turn hooks over a {@link BuiltinRuntime}. */
export function createTurnHooks(runtime: BuiltinRuntime): {
  loadState(args: { message: Envelope; sessionId: string }): Promise<TurnState>;
  buildPrompt(args: { message: Envelope }): Promise<Prompt>;
  runModelStream(
    args: { prompt: Prompt; sessionId: string; state: TurnState; signal?: AbortSignal },
  ): Promise<AsyncStreamEvents>;
  saveState(args: { message: Envelope; error?: unknown }): Promise<void>;
  systemPrompt(args: { state: TurnState }): string;
  provideModelOptions(): ModelOptions | null;
  beforeToolCall(args: { call: ToolCall }): ToolCallDecision | null;
} {
  return {
    async loadState({ message, sessionId }) {
      const agent = runtime.agent;
      const state: TurnState = {
        session_id: sessionId,
        _runtime_agent: fieldOf(message, "_runtime_agent", null) ?? agent,
      };
      const context = contextStrOf(message);
      if (context) state.context = context;
      const inbound = inboundOf(message);
      const sender = inbound.sender ?? inbound.context.sender_id;
      state[TURN_ORIGIN_STATE_KEY] = {
        channel: inbound.channel,
        chat_id: inbound.chatId,
        sender: typeof sender === "string" || typeof sender === "number" ? String(sender) : null,
        // Where its answer went (a resume at start sends it the same way).
        output_channel: inbound.outputChannel,
      };
      // The resume of a turn whose approvals were decided in another session (see its key).
      if (inbound.context[APPROVAL_RESUME_CONTEXT_KEY] !== undefined) {
        state[APPROVAL_RESUME_STATE_KEY] = true;
      }
      if (isRecoveryMessage(message)) state[RECOVER_STATE_KEY] = true;
      // A cluster's redelivery of an interrupted turn's message: resume that turn, else deliver
      // its answer when it had run to its end, else run it.
      else if (isRedelivered(message)) {
        const answer = redeliveredAnswer(message);
        state[RECOVER_STATE_KEY] = answer === null ? "or_run" : { answer };
      }
      const tape = agent.sessionTape(sessionId, {
        _runtime_workspace: runtime.framework.workspace,
      });
      // Only the latest switch of each kind matters: read it from the end of the tape.
      const events = await tape.latestEvents([
        "model_switch",
        "reasoning_effort_switch",
        "loop.step",
      ]);
      Object.assign(state, recoverSessionOverrides(events));
      // The session's last turn waits for approvals (its last step is suspended).
      const lastStep = events.find((entry) => entry.payload.name === "loop.step");
      if ((lastStep?.payload.data as { status?: unknown } | undefined)?.status === "suspended") {
        state[SUSPENDED_STATE_KEY] = true;
      }
      const messageContext = contextOf(message);
      if (messageContext.model) state.model = messageContext.model as string;
      if (messageContext.thread_id) state._runtime_thread_id = messageContext.thread_id;
      // Entered last: once entered, the turn reaches saveState (or onError) to exit it.
      const lifespan = fieldOf(message, "lifespan", null) as MessageLifespan | null;
      if (lifespan && typeof message === "object" && message !== null && !entered.has(message)) {
        await lifespan.enter?.();
        entered.set(message, lifespan);
      }
      return state;
    },
    buildPrompt({ message }) {
      return buildBuiltinPrompt(message);
    },
    async runModelStream({ prompt, sessionId, state, signal }) {
      // A sandboxed session's next command finds its sandbox started while the model is asked
      // (a comma command runs at once: a spare started now would only be waited for).
      const environment = state._runtime_environment;
      if (environment instanceof SandboxedEnvironment && !isCommaPrompt(prompt)) {
        void environment.prepare().catch(() => {});
      }
      const model = typeof state.model === "string" && state.model ? state.model : null;
      const recover = state[RECOVER_STATE_KEY];
      if (recover !== undefined) {
        // Resume at start (or a redelivered message): the session's interrupted turn.
        delete state[RECOVER_STATE_KEY];
        const resumed = await runtime.agent.recoverTurn({ sessionId, state, signal });
        if (resumed !== null) return resumed;
        if (recover === true) return new AsyncStreamEvents((async function* () {})());
        // The turn ran to its end (its tools too): its answer again, no model call, no tool.
        const answer = (recover as { answer?: unknown } | null)?.answer;
        if (typeof answer === "string") return textEvents(answer, true);
      }
      if (typeof prompt === "string" && isApprovalCommand(prompt)) {
        return await runApprovalCommand(runtime, { line: prompt, sessionId, state, signal });
      }
      if (state[SUSPENDED_STATE_KEY] === true && !isCommaPrompt(prompt)) {
        // The history ends with tool calls that have no results yet: no model call until the
        // held calls are decided.
        return await runPendingNotice(runtime, { line: "", sessionId, state, signal });
      }
      return await runtime.agent.runStream({ sessionId, prompt, state, model, signal });
    },
    saveState({ message, error }) {
      return exitMessageLifespan(message, error);
    },
    systemPrompt({ state }) {
      return builtinSystemPrompt(state);
    },
    provideModelOptions() {
      const settings = runtime.settings;
      const models = [
        ...new Set([settings.model, ...(settings.fallback_models ?? [])].filter((id) => id)),
      ];
      if (models.length === 0) return null;
      return { models: models.map((id) => ({ id, name: id })), currentModel: models[0]! };
    },
    beforeToolCall({ call }) {
      return recoverUnknownTool(call, runtime.registry) ?? approvalRuleAsk(runtime, call);
    },
  };
}

/**
 * The `ask` of the first `approvals:` rule that matches the call, or null. Settings that do not
 * load deny the call (fail closed: a broken rule must not let calls through unasked).
 */
function approvalRuleAsk(runtime: BuiltinRuntime, call: ToolCall): ToolCallDecision | null {
  let rules;
  try {
    rules = runtime.approvalSettings.rules;
  } catch (error) {
    return ToolCallDecision.deny(error instanceof Error ? error.message : String(error));
  }
  if (rules.length === 0) return null;
  const names = [call.tool];
  for (const tool of runtime.registry) {
    if (modelToolName(tool.name) === call.tool && tool.name !== call.tool) names.push(tool.name);
  }
  const ask = approvalAsk(rules, names, call.arguments);
  return ask === null ? null : ToolCallDecision.ask(ask.reason ?? "", ask.match ?? null);
}

function isCommaPrompt(prompt: Prompt): boolean {
  return typeof prompt === "string" && prompt.trim().startsWith(",");
}

/** Reads a session id from an envelope (camelCase or snake_case). */
export function sessionIdOf(message: Envelope): string | null {
  return inboundOf(message).sessionId;
}
