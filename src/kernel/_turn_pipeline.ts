import { abortableIterable, delay } from "../_internal/async.ts";

/** How long a cancelled turn waits for its model stream to close. */
const CANCEL_CLOSE_WAIT_MS = 2000;
import { kernelLogger } from "./_log.ts";
import { isCancellation } from "./agent_hooks.ts";
import { type Envelope, unpackBatch, writeSessionId } from "./envelope.ts";
import { type InboundMessage, inboundOf } from "./inbound.ts";
import { BubError, toErrorKind } from "./errors.ts";
import type { Prompt, TurnResult, TurnState } from "./turn.ts";
import type { TurnEvent } from "./turn_stream.ts";
import { startTurnTrace } from "../tracing/turn_trace.ts";
import { deltaOf } from "./_model_dispatch.ts";
import type { TurnHost } from "./_turn_host.ts";
import { buildTurnPrompt, resolveTurnSession, turnState } from "./_turn_state.ts";

/**
 * Options of `processInbound`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BubFramework, definePlugin } from "@bub/core";
 * import type { ProcessInboundOptions } from "@bub/core/kernel";
 * const bub = new BubFramework();
 * bub.register(definePlugin({ name: "echo", runModel: () => "ok" }));
 * const kinds: string[] = [];
 * const options: ProcessInboundOptions = { stream: true, onEvent: (event) => void kinds.push(event.kind) };
 * await bub.processInbound({ channel: "cli", chatId: "local", content: "hi" }, options);
 * assert.ok(kinds.includes("text"));
 * ```
 */
export interface ProcessInboundOptions {
  /** Consume the model as a stream of events. Default false. */
  stream?: boolean;
  /** Cancels the turn. */
  signal?: AbortSignal;
  /** Receives every model stream event as it happens (implies `stream: true`). */
  onEvent?: (event: TurnEvent) => void;
}

/** `processInbound`, step by step (kernel spec §6.4). */
export async function runTurn(
  host: TurnHost,
  inbound: Envelope,
  options: ProcessInboundOptions,
): Promise<TurnResult> {
  const { signal, onEvent } = options;
  const stream = options.stream === true || onEvent !== undefined;
  const runtime = host.hooks;
  // Normalised once: the stages below read typed fields; hooks still get the envelope itself.
  const message = inboundOf(inbound);
  const trace = await startTurnTrace({ channel: message.channel, signal });
  try {
    signal?.throwIfAborted();
    const sessionId = await trace.stage(
      "resolveSession",
      () => resolveTurnSession(runtime, inbound),
    );
    trace.session(sessionId);
    writeSessionId(inbound, sessionId, "if_absent");
    const state = await trace.stage("loadState", () => turnState(host, inbound, sessionId));
    const prompt = await trace.stage(
      "buildPrompt",
      () => buildTurnPrompt(runtime, inbound, sessionId, state),
    );
    let modelOutput = "";
    let modelError: unknown = undefined;
    try {
      modelOutput = await trace.stage(stream ? "runModelStream" : "runModel", () =>
        runModelStage(
          host,
          message,
          prompt,
          sessionId,
          state,
          stream,
          signal,
          onEvent,
        ));
    } catch (error) {
      modelError = error;
      throw error;
    } finally {
      await trace.stage("saveState", () =>
        runtime.call("saveState", {
          sessionId,
          state,
          message: inbound,
          modelOutput,
          error: modelError,
        }));
    }
    const outbounds = await trace.stage(
      "renderOutbound",
      () => collectOutbounds(host, message, sessionId, state, modelOutput),
    );
    for (const outbound of outbounds) {
      await trace.stage(
        "dispatchOutbound",
        () => runtime.call("dispatchOutbound", { message: outbound }),
      );
    }
    trace.end();
    return { sessionId, prompt, modelOutput, outbounds, state };
  } catch (error) {
    const cancelled = isCancellation(error) ||
      (signal?.aborted === true && error === signal.reason);
    trace.end(error, cancelled);
    if (cancelled) throw error;
    kernelLogger.error("Error processing inbound message: {error}", { error });
    await runtime.notifyError({ stage: "turn", error, message: inbound });
    throw error;
  }
}

async function runModelStage(
  host: TurnHost,
  message: InboundMessage,
  prompt: Prompt,
  sessionId: string,
  state: TurnState,
  stream: boolean,
  signal: AbortSignal | undefined,
  onEvent: ProcessInboundOptions["onEvent"],
): Promise<string> {
  const runtime = host.hooks;
  const args = { prompt, sessionId, state, signal };
  const fallback = async (): Promise<string> => {
    await runtime.notifyError({
      stage: "run_model",
      error: new Error("no model skill returned output"),
      message: message.raw,
    });
    return typeof prompt === "string" ? prompt : message.content;
  };
  if (!stream) {
    const output = await runtime.runModel(args);
    return output === null ? fallback() : output;
  }
  const events = await runtime.runModelStream(args);
  if (events === null) return fallback();
  const router = host.resources.router;
  const source = router ? router.wrapStream(message.raw, events) : events;
  let text = "";
  try {
    // Without a signal the source is read as it is (no generator around every event).
    for await (const event of signal === undefined ? source : abortableIterable(source, signal)) {
      onEvent?.(event as TurnEvent);
      if (event.kind === "text") text += deltaOf(event);
      else if (event.kind === "error") {
        await runtime.notifyError({
          stage: "run_model",
          error: errorFromEvent(event.data),
          message: message.raw,
        });
      }
    }
  } finally {
    if (signal?.aborted) {
      // Wait for the stream to close (its owner may merge a tape), but not forever: a provider
      // that ignores the abort must not hang the cancelled turn.
      const closing = events.close().catch(() => {});
      await Promise.race([closing, delay(CANCEL_CLOSE_WAIT_MS, { persistent: false })]);
    } else await events.close();
  }
  return text;
}

/** A lenient BubError from an `error` event: missing message → "", unknown kind → "unknown". */
function errorFromEvent(
  data: { readonly kind?: unknown; readonly message?: unknown; readonly details?: unknown },
): BubError {
  const details = data.details;
  return new BubError(
    toErrorKind(data.kind),
    data.message === undefined || data.message === null ? "" : String(data.message),
    typeof details === "object" && details !== null ? details as Record<string, unknown> : null,
  );
}

async function collectOutbounds(
  host: TurnHost,
  message: InboundMessage,
  sessionId: string,
  state: TurnState,
  modelOutput: string,
): Promise<Envelope[]> {
  const batches = await host.hooks.call("renderOutbound", {
    message: message.raw,
    sessionId,
    state,
    modelOutput,
  });
  const outbounds = batches.flatMap(unpackBatch);
  if (outbounds.length > 0) return outbounds;
  const fallback: Record<string, unknown> = { content: modelOutput, sessionId };
  if (message.channel !== null) fallback.channel = message.channel;
  if (message.chatId !== null) fallback.chatId = message.chatId;
  return [fallback];
}
