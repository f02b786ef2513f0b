/**
 * The 26 hooks of Bub, their dispatch kinds and the named arguments each implementation receives.
 *
 * @module
 */
import type { AsyncStreamEvents, StreamState } from "./stream.ts";
import type { Envelope } from "./envelope.ts";
import type { LlmCallRequest, LlmCallResult, ToolCall, ToolCallResult } from "./agent_calls.ts";
import type { LlmCallDecision, LlmDecision, ToolCallDecision, ToolDecision } from "./decisions.ts";
import type { Environment } from "./environment.ts";
import type {
  AdmitDecision,
  Channel,
  MessageHandler,
  SteeringInbox,
  TurnSnapshot,
} from "./channel.ts";
import type { TapeContext, TapeSidecar } from "./tape_context.ts";
import type { ModelOptions } from "./model_options.ts";
import type { Prompt, TurnState } from "./turn.ts";

/**
 * A value or a promise of it.
 *
 * @example
 * ```ts
 * import type { MaybePromise } from "@bub/core/kernel";
 * const now: MaybePromise<string> = "ready";
 * const later: MaybePromise<string> = Promise.resolve("ready");
 * ```
 */
export type MaybePromise<T> = T | PromiseLike<T>;

/**
 * A resource a hook may return instead of a value: a generator that yields the value once.
 *
 * @example
 * ```ts
 * import { definePlugin } from "@bub/core";
 * import type { Resource } from "@bub/core/kernel";
 * const log: string[] = [];
 * function* lifespan(): Resource<string> {
 *   log.push("open");
 *   yield "connection"; // resumed when the running scope closes
 *   log.push("close");
 * }
 * const plugin = definePlugin({ name: "db", provideLifespan: () => lifespan() });
 * ```
 */
export type Resource<T> =
  | T
  | Generator<T, void, unknown>
  | AsyncGenerator<T, void, unknown>
  | Iterator<T>
  | AsyncIterator<T>;

/** How a hook is dispatched. */
export type HookKind = "firstresult" | "broadcast" | "agent";

/** The dispatch rules of one hook. */
export interface HookSpec {
  /** `firstresult` (first non-null wins), `broadcast` (all run) or `agent` (AgentHooks). */
  readonly kind: HookKind;
  /** Dispatched synchronously: promise-returning implementations are skipped with a warning. */
  readonly syncOnly: boolean;
}

/**
 * The dispatch rules of every hook as literal types: the source the typed dispatcher
 * (`HookRuntime.call`) and {@link HOOK_SPECS} derive from.
 *
 * @example
 * ```ts
 * import type { HookKinds } from "@bub/core/kernel";
 * const kind: HookKinds["runModel"]["kind"] = "firstresult";
 * const syncOnly: HookKinds["systemPrompt"]["syncOnly"] = true;
 * ```
 */
export interface HookKinds {
  /** `firstresult`. */
  resolveSession: { readonly kind: "firstresult"; readonly syncOnly: false };
  /** `broadcast`. */
  loadState: { readonly kind: "broadcast"; readonly syncOnly: false };
  /** `firstresult`. */
  buildPrompt: { readonly kind: "firstresult"; readonly syncOnly: false };
  /** `firstresult`. */
  runModel: { readonly kind: "firstresult"; readonly syncOnly: false };
  /** `firstresult`. */
  runModelStream: { readonly kind: "firstresult"; readonly syncOnly: false };
  /** `firstresult`. */
  continuePrompt: { readonly kind: "firstresult"; readonly syncOnly: false };
  /** `broadcast`. */
  saveState: { readonly kind: "broadcast"; readonly syncOnly: false };
  /** `broadcast`. */
  renderOutbound: { readonly kind: "broadcast"; readonly syncOnly: false };
  /** `broadcast`. */
  dispatchOutbound: { readonly kind: "broadcast"; readonly syncOnly: false };
  /** `broadcast`, sync only. */
  registerCliCommands: { readonly kind: "broadcast"; readonly syncOnly: true };
  /** `broadcast`, sync only. */
  onboardConfig: { readonly kind: "broadcast"; readonly syncOnly: true };
  /** `broadcast`. */
  provideModelOptions: { readonly kind: "broadcast"; readonly syncOnly: false };
  /** `firstresult`. */
  provideEnvironment: { readonly kind: "firstresult"; readonly syncOnly: false };
  /** `broadcast`. */
  onError: { readonly kind: "broadcast"; readonly syncOnly: false };
  /** `broadcast`, sync only. */
  systemPrompt: { readonly kind: "broadcast"; readonly syncOnly: true };
  /** `firstresult`, sync only. */
  provideTapeStore: { readonly kind: "firstresult"; readonly syncOnly: true };
  /** `broadcast`, sync only. */
  provideLifespan: { readonly kind: "broadcast"; readonly syncOnly: true };
  /** `broadcast`, sync only. */
  provideTapeSidecar: { readonly kind: "broadcast"; readonly syncOnly: true };
  /** `broadcast`, sync only. */
  provideChannels: { readonly kind: "broadcast"; readonly syncOnly: true };
  /** `firstresult`, sync only. */
  buildTapeContext: { readonly kind: "firstresult"; readonly syncOnly: true };
  /** `firstresult`. */
  admitMessage: { readonly kind: "firstresult"; readonly syncOnly: false };
  /** `firstresult`, sync only. */
  provideSteeringInbox: { readonly kind: "firstresult"; readonly syncOnly: true };
  /** `agent`. */
  beforeLlmCall: { readonly kind: "agent"; readonly syncOnly: false };
  /** `agent`. */
  afterLlmCall: { readonly kind: "agent"; readonly syncOnly: false };
  /** `agent`. */
  beforeToolCall: { readonly kind: "agent"; readonly syncOnly: false };
  /** `agent`. */
  afterToolCall: { readonly kind: "agent"; readonly syncOnly: false };
}

/** Every hook name with its {@link HookSpec} (typed by {@link HookKinds}, so it cannot drift). */
export const HOOK_SPECS: { readonly [K in HookName]: HookKinds[K] } = {
  resolveSession: { kind: "firstresult", syncOnly: false },
  loadState: { kind: "broadcast", syncOnly: false },
  buildPrompt: { kind: "firstresult", syncOnly: false },
  runModel: { kind: "firstresult", syncOnly: false },
  runModelStream: { kind: "firstresult", syncOnly: false },
  continuePrompt: { kind: "firstresult", syncOnly: false },
  saveState: { kind: "broadcast", syncOnly: false },
  renderOutbound: { kind: "broadcast", syncOnly: false },
  dispatchOutbound: { kind: "broadcast", syncOnly: false },
  registerCliCommands: { kind: "broadcast", syncOnly: true },
  onboardConfig: { kind: "broadcast", syncOnly: true },
  provideModelOptions: { kind: "broadcast", syncOnly: false },
  provideEnvironment: { kind: "firstresult", syncOnly: false },
  onError: { kind: "broadcast", syncOnly: false },
  systemPrompt: { kind: "broadcast", syncOnly: true },
  provideTapeStore: { kind: "firstresult", syncOnly: true },
  provideLifespan: { kind: "broadcast", syncOnly: true },
  provideTapeSidecar: { kind: "broadcast", syncOnly: true },
  provideChannels: { kind: "broadcast", syncOnly: true },
  buildTapeContext: { kind: "firstresult", syncOnly: true },
  admitMessage: { kind: "firstresult", syncOnly: false },
  provideSteeringInbox: { kind: "firstresult", syncOnly: true },
  beforeLlmCall: { kind: "agent", syncOnly: false },
  afterLlmCall: { kind: "agent", syncOnly: false },
  beforeToolCall: { kind: "agent", syncOnly: false },
  afterToolCall: { kind: "agent", syncOnly: false },
};

/** True when `name` is one of the 26 hooks. */
export function isHookName(name: string): name is HookName {
  return Object.hasOwn(HOOK_SPECS, name);
}

/**
 * Named arguments and results of every hook.
 *
 * @example
 * ```ts
 * import { contentOf } from "@bub/core";
 * import type { HookSignatures } from "@bub/core/kernel";
 * const buildPrompt: HookSignatures["buildPrompt"] = ({ message }) => `Reply: ${contentOf(message)}`;
 * ```
 */
export interface HookSignatures {
  /** The session id of an inbound message (first non-null wins). */
  resolveSession(args: { message: Envelope }): MaybePromise<string | null | undefined>;
  /** A partial turn state to merge (higher priority wins key collisions). */
  loadState(
    args: { message: Envelope; sessionId: string },
  ): MaybePromise<TurnState | null | undefined>;
  /** The prompt of the turn: text or content parts (first non-null wins). */
  buildPrompt(
    args: { message: Envelope; sessionId: string; state: TurnState },
  ): MaybePromise<Prompt | null | undefined>;
  /** The model output as text (the legacy path; prefer `runModelStream`). */
  runModel(
    args: { prompt: Prompt; sessionId: string; state: TurnState; signal?: AbortSignal },
  ): MaybePromise<string | null | undefined>;
  /** The model output as a stream of events. */
  runModelStream(
    args: { prompt: Prompt; sessionId: string; state: TurnState; signal?: AbortSignal },
  ): MaybePromise<AsyncStreamEvents | null | undefined>;
  /** The next step's user message, or null to continue without one. */
  continuePrompt(
    args: { prompt: Prompt | null; tape: unknown; state: StreamState },
  ): MaybePromise<string | null | undefined>;
  /** Runs after the model stage, on success and on failure (`error` is set then). */
  saveState(
    args: {
      sessionId: string;
      state: TurnState;
      message: Envelope;
      modelOutput: string;
      error?: unknown;
    },
  ): MaybePromise<unknown>;
  /** Outbound envelopes for the turn (one, a list, or null). */
  renderOutbound(
    args: { message: Envelope; sessionId: string; state: TurnState; modelOutput: string },
  ): MaybePromise<Envelope | Envelope[] | null | undefined>;
  /** Delivers one outbound envelope (every implementation sees every outbound). */
  dispatchOutbound(args: { message: Envelope }): MaybePromise<boolean | null | undefined | void>;
  /** Adds commands to the `bub` CLI app (sync only). */
  registerCliCommands(args: { app: unknown }): unknown;
  /** A config fragment for `bub onboard` (sync only; merged lowest priority first). */
  onboardConfig(
    args: { currentConfig: Record<string, unknown> },
  ): Record<string, unknown> | null | undefined;
  /** Model choices to offer (merged in priority order). */
  provideModelOptions(
    args: { sessionId: string; workspace: string | null },
  ): MaybePromise<ModelOptions | null | undefined>;
  /** The execution environment of a session (asked once per session). */
  provideEnvironment(
    args: { sessionId: string; workspace: string },
  ): MaybePromise<Environment | null | undefined>;
  /** Observes an error of a stage; failures here are logged and never propagate. */
  onError(
    args: { stage: string; error: unknown; message: Envelope | null },
  ): MaybePromise<unknown>;
  /** A system-prompt fragment (sync only; truthy fragments are joined). */
  systemPrompt(args: { prompt: Prompt; state: TurnState }): string | null | undefined;
  /** The tape store of the running scope, or a generator yielding it (sync only). */
  provideTapeStore(args: Record<string, never>): Resource<object> | null | undefined;
  /** A generator that yields once, held open for the running scope (sync only). */
  provideLifespan(args: Record<string, never>): Resource<unknown> | null | undefined;
  /** One named tape sidecar (sync only; deduplicated by name). */
  provideTapeSidecar(args: Record<string, never>): TapeSidecar | null | undefined;
  /** Channels to serve (sync only; deduplicated by name). */
  provideChannels(args: { messageHandler: MessageHandler }): Channel[] | null | undefined;
  /** How model contexts are rebuilt from tapes (sync only). */
  buildTapeContext(args: Record<string, never>): TapeContext | null | undefined;
  /** Whether and how a channel message of a busy session runs. */
  admitMessage(
    args: { sessionId: string; message: Envelope; turn: TurnSnapshot },
  ): MaybePromise<AdmitDecision | null | undefined>;
  /** The steering inbox of the running scope, or a generator yielding it (sync only). */
  provideSteeringInbox(args: Record<string, never>): Resource<SteeringInbox> | null | undefined;
  /**
   * Rewrites an LLM request, or finishes the call without the provider (an
   * {@link LlmCallDecision} or a plain `{ action: "finish", text }`).
   */
  beforeLlmCall(
    args: { request: LlmCallRequest; state: TurnState },
  ): MaybePromise<LlmCallRequest | LlmCallDecision | LlmDecision | null | undefined | void>;
  /** Observes the outcome of an LLM call, exactly once per completed call. */
  afterLlmCall(
    args: { request: LlmCallRequest; result: LlmCallResult; state: TurnState },
  ): MaybePromise<unknown>;
  /**
   * Decides on a tool call: proceed (with new arguments), replace or deny — a
   * {@link ToolCallDecision} or a plain `{ action: "deny", reason }`, `{ action: "replace", result }`
   * or `{ action: "proceed", args }`.
   */
  beforeToolCall(
    args: { call: ToolCall; state: TurnState },
  ): MaybePromise<ToolCallDecision | ToolDecision | null | undefined | void>;
  /** Observes (and may rewrite the model-facing value of) a tool call's outcome. */
  afterToolCall(
    args: { call: ToolCall; result: ToolCallResult; state: TurnState },
  ): MaybePromise<unknown>;
}

/**
 * One of the 26 hook names, in camelCase.
 *
 * @example
 * ```ts
 * import type { HookName } from "@bub/core";
 * const stages: HookName[] = ["resolveSession", "loadState", "buildPrompt", "runModel"];
 * ```
 */
export type HookName = keyof HookSignatures;

/**
 * The named-argument object of hook `K`.
 *
 * @example
 * ```ts
 * import type { HookArgs } from "@bub/core/kernel";
 * function logStage(args: HookArgs<"saveState">): void {
 *   console.log(args.sessionId, args.modelOutput.length);
 * }
 * logStage({ sessionId: "cli:local", state: {}, message: {}, modelOutput: "ok" });
 * ```
 */
export type HookArgs<K extends HookName> = Parameters<HookSignatures[K]>[0];

/**
 * The value an implementation of hook `K` answers with (null and undefined mean "no value").
 *
 * @example
 * ```ts
 * import type { HookValue } from "@bub/core/kernel";
 * const sessionId: HookValue<"resolveSession"> = "cli:local";
 * ```
 */
export type HookValue<K extends HookName> = Exclude<
  Awaited<ReturnType<HookSignatures[K]>>,
  null | undefined | void
>;

/**
 * The hooks whose {@link HookKinds} entry matches `S`.
 *
 * @example
 * ```ts
 * import type { HooksWhere } from "@bub/core/kernel";
 * const syncHook: HooksWhere<{ syncOnly: true }> = "systemPrompt";
 * ```
 */
export type HooksWhere<S> = { [K in HookName]: HookKinds[K] extends S ? K : never }[HookName];

/** Async first-result hooks (`callFirst`). */
export type FirstResultHook = HooksWhere<{ kind: "firstresult"; syncOnly: false }>;
/** Sync-only first-result hooks (`callFirstSync`). */
export type FirstResultSyncHook = HooksWhere<{ kind: "firstresult"; syncOnly: true }>;
/** Async broadcast hooks (`callMany`). */
export type BroadcastHook = HooksWhere<{ kind: "broadcast"; syncOnly: false }>;
/** Sync-only broadcast hooks (`callManySync`). */
export type BroadcastSyncHook = HooksWhere<{ kind: "broadcast"; syncOnly: true }>;
/**
 * The hooks the generic dispatcher runs (every hook but the four agent-loop ones).
 *
 * @example
 * ```ts
 * import type { DispatchHook } from "@bub/core/kernel";
 * const hook: DispatchHook = "renderOutbound"; // agent-loop hooks go through AgentHooks instead
 * ```
 */
export type DispatchHook = HooksWhere<{ kind: "firstresult" | "broadcast" }>;

/**
 * What dispatching hook `K` yields: the first value or null, or every value (nulls included).
 *
 * @example
 * ```ts
 * import type { HookResult } from "@bub/core/kernel";
 * const first: HookResult<"resolveSession"> = "cli:local"; // firstresult: one value or null
 * const all: HookResult<"systemPrompt"> = ["Be brief.", null]; // broadcast: one per implementation
 * ```
 */
export type HookResult<K extends HookName> = HookKinds[K]["kind"] extends "firstresult"
  ? HookValue<K> | null
  : (HookValue<K> | null)[];

/**
 * {@link HookResult}, in a promise unless the hook is sync-only.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { definePlugin } from "@bub/core";
 * import { type HookDispatch, KernelFramework } from "@bub/core/kernel";
 * const kernel = new KernelFramework({ loadDotenv: false });
 * kernel.register(definePlugin({ name: "p", systemPrompt: () => "Be brief." }));
 * const prompts: HookDispatch<"systemPrompt"> = kernel.hookRuntime.call("systemPrompt", {
 *   prompt: "hi",
 *   state: {},
 * });
 * assert.deepEqual(prompts, ["Be brief."]);
 * ```
 */
export type HookDispatch<K extends HookName> = HookKinds[K]["syncOnly"] extends true ? HookResult<K>
  : Promise<HookResult<K>>;
