/**
 * Private: Bub's tracer hands out spans that redact every string they are given before it reaches
 * the span (and so the exporter): names, attribute values (also nested and in arrays), event
 * names and attributes, link attributes, the status message and recorded exceptions (type,
 * message, stack). The secrets are the one list of `_internal/secrets.ts` (the environment's and
 * the settings'), read at most once a second.
 *
 * @module
 */
import type * as OtelApi from "@opentelemetry/api";
import { REDACTED, redactSecrets } from "../_internal/redact.ts";
import { knownSecrets } from "../_internal/secrets.ts";

type Span = OtelApi.Span;
type Attributes = OtelApi.Attributes;
type TimeInput = OtelApi.TimeInput;

/** How old the list of secrets may be (reading the environment costs ~0.1-0.2 ms). */
const SECRETS_MAX_AGE_MS = 1000;

function secrets(): readonly string[] {
  return knownSecrets({ maxAgeMs: SECRETS_MAX_AGE_MS });
}

function text(value: string): string {
  return redactSecrets(value, secrets());
}

/** `value` with every string in it redacted (arrays and plain objects copied). */
function redactValue<T>(value: T, depth = 0): T {
  if (typeof value === "string") return text(value) as T;
  if (depth > 16 || typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1)) as T;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  return redactAttributes(value as Attributes, depth + 1) as T;
}

function redactAttributes(attributes: Attributes, depth = 0): Attributes {
  const out: Attributes = {};
  for (const key of Object.keys(attributes)) {
    out[key.includes(REDACTED) ? key : text(key)] = redactValue(attributes[key], depth);
  }
  return out;
}

function isTime(value: unknown): value is TimeInput {
  return typeof value === "number" || Array.isArray(value) || value instanceof Date;
}

function redactLink(link: OtelApi.Link): OtelApi.Link {
  return link.attributes ? { ...link, attributes: redactAttributes(link.attributes) } : link;
}

function redactOptions(options: OtelApi.SpanOptions | undefined): OtelApi.SpanOptions | undefined {
  if (options === undefined) return undefined;
  const out: OtelApi.SpanOptions = { ...options };
  if (options.attributes) out.attributes = redactAttributes(options.attributes);
  if (options.links) out.links = options.links.map(redactLink);
  return out;
}

/** A span that redacts what it records, then passes it to `inner`. */
class RedactingSpan implements Span {
  #inner: Span;

  constructor(inner: Span) {
    this.#inner = inner;
  }

  spanContext(): OtelApi.SpanContext {
    return this.#inner.spanContext();
  }

  setAttribute(key: string, value: OtelApi.SpanAttributeValue): this {
    this.#inner.setAttribute(key, redactValue(value));
    return this;
  }

  setAttributes(attributes: OtelApi.SpanAttributes): this {
    this.#inner.setAttributes(redactAttributes(attributes));
    return this;
  }

  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (attributesOrTime === undefined || isTime(attributesOrTime)) {
      this.#inner.addEvent(text(name), attributesOrTime, time);
    } else {
      this.#inner.addEvent(text(name), redactAttributes(attributesOrTime), time);
    }
    return this;
  }

  addLink(link: OtelApi.Link): this {
    this.#inner.addLink(redactLink(link));
    return this;
  }

  addLinks(links: OtelApi.Link[]): this {
    this.#inner.addLinks(links.map(redactLink));
    return this;
  }

  setStatus(status: OtelApi.SpanStatus): this {
    const message = status.message;
    this.#inner.setStatus(message ? { ...status, message: text(message) } : status);
    return this;
  }

  updateName(name: string): this {
    this.#inner.updateName(text(name));
    return this;
  }

  end(endTime?: TimeInput): void {
    this.#inner.end(endTime);
  }

  isRecording(): boolean {
    return this.#inner.isRecording();
  }

  recordException(exception: OtelApi.Exception, time?: TimeInput): void {
    if (typeof exception === "string") return this.#inner.recordException(text(exception), time);
    const { code, name, message, stack } = exception ?? {};
    const copy: Record<string, unknown> = {};
    if (code !== undefined) copy.code = typeof code === "string" ? text(code) : code;
    if (typeof name === "string") copy.name = text(name);
    if (typeof message === "string") copy.message = text(message);
    if (typeof stack === "string") copy.stack = text(stack);
    this.#inner.recordException(copy as unknown as OtelApi.Exception, time);
  }
}

/** A tracer whose spans are {@link RedactingSpan}s. */
class RedactingTracer implements OtelApi.Tracer {
  #inner: OtelApi.Tracer;

  constructor(inner: OtelApi.Tracer) {
    this.#inner = inner;
  }

  startSpan(name: string, options?: OtelApi.SpanOptions, context?: OtelApi.Context): Span {
    return new RedactingSpan(this.#inner.startSpan(text(name), redactOptions(options), context));
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: unknown[]) {
    const fn = rest.pop() as F;
    const wrapped = (span: Span) => fn(new RedactingSpan(span));
    const [options, context] = rest as [OtelApi.SpanOptions | undefined, OtelApi.Context?];
    const args: unknown[] = rest.length === 0
      ? [wrapped]
      : rest.length === 1
      ? [redactOptions(options), wrapped]
      : [redactOptions(options), context, wrapped];
    return (this.#inner.startActiveSpan as (name: string, ...args: unknown[]) => ReturnType<F>)(
      text(name),
      ...args,
    );
  }
}

/**
 * `tracer` with every span it starts redacting the known secrets from what it records.
 *
 * @example
 * ```ts ignore
 * const tracer = redactingTracer(api.trace.getTracer("@bub/core"));
 * tracer.startSpan("chat").setStatus({ code: 2, message: "401: key sk-... rejected" });
 * ```
 */
export function redactingTracer(tracer: OtelApi.Tracer): OtelApi.Tracer {
  return new RedactingTracer(tracer);
}
