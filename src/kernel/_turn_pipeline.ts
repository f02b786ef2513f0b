import { abortableIterable, delay } from "../_internal/async.ts";

/** How long a cancelled turn waits for its model stream to close. */
const CANCEL_CLOSE_WAIT_MS = 2000;
import { kernelLogger } from "./_log.ts";
import { isCancellation } from "./agent_hooks.ts";
import {
  contentOf,
  type Envelope,
  envelopeField,
  fieldOf,
  isMappingEnvelope,
  unpackBatch,
} from "./envelope.ts";
import { BubError, toErrorKind } from "./errors.ts";
import type { Prompt, TurnResult, TurnState } from "./turn.ts";
import type { TurnEvent } from "./turn_stream.ts";
import { startTurnTrace } from "../tracing/turn_trace.ts";
import { deltaOf } from "./_model_dispatch.ts";
import type { TurnHost } from "./_turn_host.ts";
import { buildTurnPrompt, resolveTurnSession, turnState } from "./_turn_state.ts";

/** Options of `processInbound`. */
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
  const trace = await startTurnTrace({ channel: channelOf(inbound), signal });
  try {
    signal?.throwIfAborted();
    const sessionId = await trace.stage(
      "resolveSession",
      () => resolveTurnSession(runtime, inbound),
    );
    trace.session(sessionId);
    writeSessionId(inbound, sessionId);
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
          inbound,
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
      () => collectOutbounds(host, inbound, sessionId, state, modelOutput),
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

function channelOf(inbound: Envelope): string | null {
  const channel = fieldOf(inbound, "channel", null);
  return typeof channel === "string" ? channel : null;
}

function writeSessionId(inbound: Envelope, sessionId: string): void {
  if (!isMappingEnvelope(inbound)) return;
  if (inbound instanceof Map) {
    if (!inbound.has("sessionId") && !inbound.has("session_id")) {
      inbound.set("sessionId", sessionId);
    }
    return;
  }
  const record = inbound as Record<string, unknown>;
  if (!("sessionId" in record) && !("session_id" in record)) record.sessionId = sessionId;
}

async function runModelStage(
  host: TurnHost,
  inbound: Envelope,
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
      message: inbound,
    });
    return typeof prompt === "string" ? prompt : contentOf(inbound);
  };
  if (!stream) {
    const output = await runtime.runModel(args);
    return output === null ? fallback() : output;
  }
  const events = await runtime.runModelStream(args);
  if (events === null) return fallback();
  const router = host.resources.router;
  const source = router ? router.wrapStream(inbound, events) : events;
  let text = "";
  try {
    for await (const event of abortableIterable(source, signal)) {
      onEvent?.(event as TurnEvent);
      if (event.kind === "text") text += deltaOf(event);
      else if (event.kind === "error") {
        await runtime.notifyError({
          stage: "run_model",
          error: errorFromEvent(event.data),
          message: inbound,
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
function errorFromEvent(data: Record<string, unknown>): BubError {
  const details = data.details;
  return new BubError(
    toErrorKind(data.kind),
    data.message === undefined || data.message === null ? "" : String(data.message),
    typeof details === "object" && details !== null ? details as Record<string, unknown> : null,
  );
}

async function collectOutbounds(
  host: TurnHost,
  inbound: Envelope,
  sessionId: string,
  state: TurnState,
  modelOutput: string,
): Promise<Envelope[]> {
  const batches = await host.hooks.call("renderOutbound", {
    message: inbound,
    sessionId,
    state,
    modelOutput,
  });
  const outbounds = batches.flatMap(unpackBatch);
  if (outbounds.length > 0) return outbounds;
  const fallback: Record<string, unknown> = { content: modelOutput, sessionId };
  const channel = fieldOf(inbound, "channel", null);
  const chatId = envelopeField(inbound, "chatId", "chat_id");
  if (channel !== null) fallback.channel = channel;
  if (chatId !== null) fallback.chatId = chatId;
  return [fallback];
}
