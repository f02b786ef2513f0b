/**
 * `streamInbound`: one turn as an async iterable of events — the model stream's events as they
 * happen, then a `done` event carrying the {@link TurnResult}. Leaving the loop early (`break`,
 * `return`, a thrown error) cancels the turn and waits for it to wind down.
 *
 * @module
 */
import { LinkedSignal } from "../_internal/linked_signal.ts";
import { PushQueue } from "../_internal/push_queue.ts";
import type { Envelope } from "./envelope.ts";
import type { StreamEvent } from "./stream_events.ts";
import type { TurnResult } from "./turn.ts";

/**
 * The last event of a streamed turn: saved, rendered and dispatched.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BubFramework, definePlugin } from "@bub/core";
 * import type { TurnDoneEvent } from "@bub/core/kernel";
 * const bub = new BubFramework();
 * bub.register(definePlugin({ name: "echo", runModel: () => "ok" }));
 * let done: TurnDoneEvent | undefined;
 * for await (const event of bub.streamInbound({ channel: "cli", chatId: "local", content: "hi" })) {
 *   if (event.kind === "done") done = event;
 * }
 * assert.equal(done?.data.result.modelOutput, "ok");
 * ```
 */
export interface TurnDoneEvent {
  /** The turn finished. Always the last event. */
  readonly kind: "done";
  /** The turn's result. */
  readonly data: { readonly result: TurnResult };
}

/**
 * One event of a streamed turn: a model {@link StreamEvent} (narrow on `kind`: `text` carries
 * `{ delta }`, `tool_start`/`tool_end` a tool call's arguments, result and duration, …), or the
 * final {@link TurnDoneEvent}.
 *
 * @example
 * ```ts
 * import { BubFramework, definePlugin, type TurnEvent } from "@bub/core";
 * const bub = new BubFramework();
 * bub.register(definePlugin({ name: "echo", runModel: () => "ok" }));
 * function show(event: TurnEvent): void {
 *   if (event.kind === "text") console.log(event.data.delta);
 * }
 * for await (const event of bub.streamInbound({ channel: "cli", chatId: "local", content: "hi" })) show(event);
 * ```
 */
export type TurnEvent = StreamEvent | TurnDoneEvent;

/**
 * Options of `streamInbound`.
 *
 * @example
 * ```ts
 * import { BubFramework, definePlugin, type StreamInboundOptions } from "@bub/core";
 * const bub = new BubFramework();
 * bub.register(definePlugin({ name: "echo", runModel: () => "ok" }));
 * const options: StreamInboundOptions = { signal: AbortSignal.timeout(10_000) };
 * for await (const event of bub.streamInbound({ channel: "cli", content: "hi" }, options)) {
 *   console.log(event.kind);
 * }
 * ```
 */
export interface StreamInboundOptions {
  /** Cancels the turn; the iteration then throws the abort reason. */
  signal?: AbortSignal;
}

/** The part of the framework a streamed turn needs. */
export interface TurnStreamHost {
  /** Runs the turn, reporting every model stream event to `onEvent`. */
  processInbound(
    inbound: Envelope,
    options: { stream: true; signal: AbortSignal; onEvent: (event: TurnEvent) => void },
  ): Promise<TurnResult>;
}

/** Runs one turn on `host` and yields its events (see the module doc). */
export async function* streamTurn(
  host: TurnStreamHost,
  inbound: Envelope,
  options: StreamInboundOptions = {},
): AsyncGenerator<TurnEvent, void, undefined> {
  // Linked, not `AbortSignal.any()`, which would keep each turn's signal from a long-lived one.
  const linked = new LinkedSignal([options.signal]);
  const signal = linked.signal;
  const events = new PushQueue<TurnEvent>();
  let failed = false;
  let failure: unknown;
  const turn = Promise.resolve()
    .then(() =>
      host.processInbound(inbound, {
        stream: true,
        signal,
        onEvent: (event) => events.push(event),
      })
    )
    .then(
      (result) => events.push({ kind: "done", data: { result } }),
      (error) => {
        failed = true;
        failure = error;
      },
    )
    .finally(() => events.close());
  try {
    yield* events.drain();
    if (failed) throw failure;
  } finally {
    if (!events.closed) {
      linked.abort(new DOMException("The turn stream was closed", "AbortError"));
      await turn;
    }
    linked[Symbol.dispose]();
  }
}
