/**
 * Private: the `chat <model>` span of each model call, taken by wrapping the {@link ModelClient}:
 * the request gives the model and `max_tokens`, the `start` event the provider and the model that
 * answered, then `usage` and `finish`. Without a registered tracer provider the wrapper hands the
 * call straight to the client.
 *
 * The messages go on the span as the GenAI semantic conventions' JSON message attributes
 * (`genAiInput`, `genAiOutput`); media parts keep only their type.
 *
 * @module
 */
import {
  GEN_AI_CONVERSATION_ID,
  GEN_AI_INPUT_MESSAGES,
  GEN_AI_OPERATION_CHAT,
  GEN_AI_OPERATION_NAME,
  GEN_AI_OUTPUT_MESSAGES,
  GEN_AI_PROVIDER_NAME,
  GEN_AI_REQUEST_MAX_TOKENS,
  GEN_AI_REQUEST_MODEL,
  GEN_AI_RESPONSE_FINISH_REASONS,
  GEN_AI_RESPONSE_MODEL,
  GEN_AI_SYSTEM_INSTRUCTIONS,
  GEN_AI_USAGE_INPUT_TOKENS,
  GEN_AI_USAGE_OUTPUT_TOKENS,
} from "../tracing/attributes.ts";
import {
  activeTracing,
  captureContentEnabled,
  currentScope,
  isAbort,
  parentContext,
  recordFailure,
  type Span,
  type Tracing,
  tracingEnabled,
} from "../tracing/tracer.ts";
import {
  type ChatContentPart,
  type ChatMessage,
  MODEL_CLIENT_SPECIFICATION_VERSION,
  type ModelClient,
  type ModelEvent,
  type ModelRequest,
  type ModelStreamOptions,
} from "./model_client.ts";

/** `client` with a `chat` span around every call (see the module doc). */
export function tracedModelClient(client: ModelClient): ModelClient {
  return {
    specificationVersion: MODEL_CLIENT_SPECIFICATION_VERSION,
    stream(request: ModelRequest, options?: ModelStreamOptions): AsyncIterable<ModelEvent> {
      if (!tracingEnabled()) return client.stream(request, options);
      return {
        [Symbol.asyncIterator]: () => new ChatSpanIterator(client, request, options),
      };
    },
  };
}

function splitModel(id: string): { provider: string | null; model: string } {
  const match = /^([^:/]+)[:/](.+)$/.exec(id);
  return match ? { provider: match[1]!, model: match[2]! } : { provider: null, model: id };
}

class ChatSpanIterator implements AsyncIterator<ModelEvent> {
  #client: ModelClient;
  #request: ModelRequest;
  #options: ModelStreamOptions | undefined;
  #inner: AsyncIterator<ModelEvent> | null = null;
  #tracing: Tracing | null = null;
  #span: Span | null = null;
  #capture = false;
  #text = "";
  #calls: Array<{ id: string; name: string; arguments: string }> = [];
  #finish: string[] = [];
  #ended = false;

  constructor(client: ModelClient, request: ModelRequest, options: ModelStreamOptions | undefined) {
    this.#client = client;
    this.#request = request;
    this.#options = options;
  }

  async next(): Promise<IteratorResult<ModelEvent>> {
    if (this.#inner === null) await this.#begin();
    let result: IteratorResult<ModelEvent>;
    try {
      result = await this.#inner!.next();
    } catch (error) {
      this.#end(error);
      throw error;
    }
    if (result.done) this.#end();
    else if (this.#span !== null) this.#observe(result.value);
    return result;
  }

  async return(value?: unknown): Promise<IteratorResult<ModelEvent>> {
    // Closed early: after an abort (cancellation, or a timeout's BubError) that is the outcome.
    const signal = this.#options?.signal;
    this.#end(signal?.aborted ? signal.reason : undefined);
    const inner = this.#inner;
    if (inner?.return) return await inner.return(value);
    return { done: true, value: undefined };
  }

  async #begin(): Promise<void> {
    const tracing = await activeTracing().catch(() => null);
    if (tracing !== null) {
      const scope = currentScope();
      const { provider, model } = splitModel(this.#request.model);
      const attributes: Record<string, string | number> = {
        [GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_CHAT,
        [GEN_AI_REQUEST_MODEL]: model,
      };
      if (provider !== null) attributes[GEN_AI_PROVIDER_NAME] = provider;
      if (typeof this.#request.maxTokens === "number") {
        attributes[GEN_AI_REQUEST_MAX_TOKENS] = this.#request.maxTokens;
      }
      if (scope?.sessionId) attributes[GEN_AI_CONVERSATION_ID] = scope.sessionId;
      const span = tracing.tracer.startSpan(`${GEN_AI_OPERATION_CHAT} ${model}`, {
        kind: tracing.api.SpanKind.CLIENT,
        attributes,
      }, parentContext(tracing));
      this.#capture = span.isRecording() && (scope?.captureContent ?? captureContentEnabled());
      if (this.#capture) {
        const { system, input } = genAiInput(this.#request.messages as readonly ChatMessage[]);
        if (system !== null) span.setAttribute(GEN_AI_SYSTEM_INSTRUCTIONS, system);
        span.setAttribute(GEN_AI_INPUT_MESSAGES, input);
      }
      this.#tracing = tracing;
      this.#span = span;
    }
    this.#inner = this.#client.stream(this.#request, this.#options)[Symbol.asyncIterator]();
  }

  #observe(event: ModelEvent): void {
    const span = this.#span!;
    switch (event.type) {
      case "start":
        span.setAttribute(GEN_AI_PROVIDER_NAME, event.provider);
        span.setAttribute(GEN_AI_RESPONSE_MODEL, event.model);
        break;
      case "usage": {
        const { prompt_tokens: input, completion_tokens: output } = event.usage;
        if (typeof input === "number") span.setAttribute(GEN_AI_USAGE_INPUT_TOKENS, input);
        if (typeof output === "number") span.setAttribute(GEN_AI_USAGE_OUTPUT_TOKENS, output);
        break;
      }
      case "finish":
        this.#finish.push(event.rawReason ?? event.reason);
        break;
      case "text":
        if (this.#capture) this.#text += event.delta;
        break;
      case "tool_call":
        if (this.#capture) {
          this.#calls.push({ id: event.id, name: event.name, arguments: event.arguments });
        }
        break;
    }
  }

  #end(error?: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    const span = this.#span;
    if (span === null) return;
    if (this.#finish.length > 0) span.setAttribute(GEN_AI_RESPONSE_FINISH_REASONS, this.#finish);
    if (this.#capture && error === undefined) {
      span.setAttribute(
        GEN_AI_OUTPUT_MESSAGES,
        genAiOutput(this.#text, this.#calls, this.#finish[0] ?? null),
      );
    }
    if (error !== undefined) {
      recordFailure(this.#tracing!, span, error, isAbort(error, this.#options?.signal));
    }
    span.end();
  }
}

type Part = Record<string, unknown>;

function contentParts(content: string | readonly ChatContentPart[] | null | undefined): Part[] {
  if (content === null || content === undefined) return [];
  if (typeof content === "string") return content ? [{ type: "text", content }] : [];
  return content.map((part) =>
    part.type === "text" ? { type: "text", content: String(part.text ?? "") } : { type: part.type }
  );
}

function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The system instructions (JSON, or null without a system message) and the other messages (JSON). */
export function genAiInput(
  messages: readonly ChatMessage[],
): { system: string | null; input: string } {
  const system: Part[] = [];
  const input: Array<{ role: string; parts: Part[] }> = [];
  for (const message of messages) {
    if (message.role === "system" || message.role === "developer") {
      system.push(...contentParts(message.content));
    } else if (message.role === "tool") {
      input.push({
        role: "tool",
        parts: [{
          type: "tool_call_response",
          id: message.tool_call_id,
          response: typeof message.content === "string"
            ? message.content
            : contentParts(message.content),
        }],
      });
    } else if (message.role === "assistant") {
      const parts = contentParts(message.content);
      for (const call of message.tool_calls ?? []) {
        parts.push({
          type: "tool_call",
          id: call.id,
          name: call.function.name,
          arguments: parsedArguments(call.function.arguments),
        });
      }
      input.push({ role: "assistant", parts });
    } else {
      input.push({ role: message.role, parts: contentParts(message.content) });
    }
  }
  return {
    system: system.length > 0 ? JSON.stringify(system) : null,
    input: JSON.stringify(input),
  };
}

/** The answer as `gen_ai.output.messages` (JSON). */
export function genAiOutput(
  text: string,
  calls: readonly { id: string; name: string; arguments: string }[],
  finishReason: string | null,
): string {
  const parts: Part[] = text ? [{ type: "text", content: text }] : [];
  for (const call of calls) {
    parts.push({
      type: "tool_call",
      id: call.id,
      name: call.name,
      arguments: parsedArguments(call.arguments),
    });
  }
  return JSON.stringify([{ role: "assistant", parts, finish_reason: finishReason ?? "stop" }]);
}
