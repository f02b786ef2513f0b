/**
 * Bub's side of OpenTelemetry: whether a tracer provider is registered, the `@opentelemetry/api`
 * module loaded on first use (never while no provider is registered), the tracer, and the span
 * scope that carries the current span across async calls even when no context manager is set.
 *
 * Every span of the tracer redacts the known secrets (the environment's and the settings', see
 * `_internal/secrets.ts`) from every string it records: names, attributes (message contents and
 * tool results included), events, the status message and exceptions.
 *
 * Cost when tracing is off: {@link tracingEnabled} reads one global property; nothing is
 * imported, allocated or entered.
 *
 * @module
 */
import type * as OtelApi from "@opentelemetry/api";
import { AsyncLocalStorage } from "node:async_hooks";
import process from "node:process";
import { lazyImport } from "../_internal/lazy.ts";
import { redactingTracer } from "./_redacting_tracer.ts";
import { CAPTURE_MESSAGE_CONTENT_ENV, ERROR_TYPE, ERROR_TYPE_CANCELLED } from "./attributes.ts";
import { VERSION } from "../version.ts";

/** The `@opentelemetry/api` module. */
export type Otel = typeof OtelApi;
/** An OpenTelemetry span. */
export type Span = OtelApi.Span;
/** An OpenTelemetry context. */
export type Context = OtelApi.Context;

/** The key under which every copy of `@opentelemetry/api` 1.x (and Deno's OTEL_DENO) keeps its globals. */
const OTEL_GLOBAL = Symbol.for("opentelemetry.js.api.1");

/** The loaded API and Bub's tracer. */
export interface Tracing {
  /** The `@opentelemetry/api` module. */
  readonly api: Otel;
  /** The tracer named `@bub/core` (its spans redact known secrets). */
  readonly tracer: OtelApi.Tracer;
}

/** What the spans of one turn share: the parent of new spans, the session, the content switch. */
export interface TraceScope {
  /** The loaded API and tracer. */
  readonly tracing: Tracing;
  /** The context whose span is the parent of spans started inside this scope. */
  readonly context: Context;
  /** The session id (`gen_ai.conversation.id`), once known. */
  readonly sessionId: string | null;
  /** Record message contents (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`). */
  readonly captureContent: boolean;
}

/**
 * True when a tracer provider is registered with the OpenTelemetry API (by an SDK, by the `bub`
 * CLI, or by Deno with `OTEL_DENO=true`). Reads one global; imports nothing.
 */
export function tracingEnabled(): boolean {
  const globals = (globalThis as Record<symbol, { trace?: unknown } | undefined>)[OTEL_GLOBAL];
  return globals?.trace !== undefined && globals.trace !== null;
}

const loadApi = lazyImport(() => import("@opentelemetry/api"));
let api: Otel | null = null;
let loaded: (Tracing & { readonly inner: OtelApi.Tracer }) | null = null;

/**
 * The API with the registered provider's tracer, wrapped to redact (again when another provider
 * was registered since: the API hands out the provider's own tracer, not a proxy).
 */
function tracingOf(otel: Otel): Tracing {
  const inner = otel.trace.getTracer("@bub/core", VERSION);
  if (loaded === null || loaded.inner !== inner) {
    loaded = { api: otel, tracer: redactingTracer(inner), inner };
  }
  return loaded;
}

/** The API and tracer when a provider is registered (importing the API once), else null. */
export async function activeTracing(): Promise<Tracing | null> {
  if (!tracingEnabled()) return null;
  api ??= await loadApi();
  return tracingOf(api);
}

/**
 * Like {@link activeTracing}, synchronously: null until the API has been loaded (the load is
 * then started, so later calls find it).
 */
export function loadedTracing(): Tracing | null {
  if (!tracingEnabled()) return null;
  if (api === null) {
    void activeTracing().catch(() => {});
    return null;
  }
  return tracingOf(api);
}

/** Whether message contents may be recorded (read from the environment at each call). */
export function captureContentEnabled(): boolean {
  return process.env[CAPTURE_MESSAGE_CONTENT_ENV]?.trim().toLowerCase() === "true";
}

let storage: AsyncLocalStorage<TraceScope> | null = null;

/** The scope of the running traced operation, or undefined outside one. */
export function currentScope(): TraceScope | undefined {
  return storage?.getStore();
}

/** The parent context of a new span: the current scope's, else the API's active context. */
export function parentContext(tracing: Tracing): Context {
  return currentScope()?.context ?? tracing.api.context.active();
}

/**
 * Runs `run` inside `scope`: spans started inside it are children of `scope.context` (which is
 * also made the API's active context for other instrumentation).
 */
export function runInScope<T>(scope: TraceScope, run: () => T): T {
  storage ??= new AsyncLocalStorage<TraceScope>();
  const store = storage;
  return scope.tracing.api.context.with(scope.context, () => store.run(scope, run));
}

/**
 * True when `error` is a cancellation: an `AbortError`, or the reason `signal` was aborted with
 * (unless that reason is a `BubError`, e.g. a timeout).
 */
export function isAbort(error: unknown, signal?: AbortSignal | null): boolean {
  if (typeof error === "object" && error !== null) {
    if ((error as { name?: unknown }).name === "AbortError") return true;
    if (typeof (error as { kind?: unknown }).kind === "string") return false;
  }
  return signal?.aborted === true && error === signal.reason;
}

/**
 * Marks `span` failed: `error.type` (the `BubError` kind, else the error's name, or `cancelled`),
 * the exception event, and status ERROR with the message.
 */
export function recordFailure(
  tracing: Tracing,
  span: Span,
  error: unknown,
  cancelled = false,
): void {
  const message = error instanceof Error ? error.message : String(error);
  if (cancelled) {
    span.setAttribute(ERROR_TYPE, ERROR_TYPE_CANCELLED);
    span.setStatus({ code: tracing.api.SpanStatusCode.ERROR, message: message || "cancelled" });
    return;
  }
  span.setAttribute(ERROR_TYPE, errorType(error));
  if (error instanceof Error) span.recordException(error);
  else span.recordException(message);
  span.setStatus({ code: tracing.api.SpanStatusCode.ERROR, message });
}

function errorType(error: unknown): string {
  if (typeof error !== "object" || error === null) return "Error";
  const kind = (error as { kind?: unknown }).kind;
  if (typeof kind === "string" && kind) return kind;
  const name = (error as { name?: unknown }).name;
  return typeof name === "string" && name ? name : "Error";
}

/** `value` as JSON for a content attribute (`String(value)` when it cannot be encoded). */
export function contentJson(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
