/**
 * A real HTTP server on 127.0.0.1 that plays a model: OpenAI chat-completions (also under Azure's
 * `…/deployments/<d>/…?api-version=` paths), OpenAI Responses, Anthropic messages, Google Gemini /
 * Vertex AI `generateContent` and Amazon Bedrock Converse (AWS event-stream framing), streamed
 * or not, driven by a script of replies.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { BubError } from "../kernel/errors.ts";
import { type LoopbackServer, readBody, startFakeServer } from "./_http.ts";
import type { MockProtocol, MockReply, MockRequest, MockResponder } from "./_mock_reply.ts";
import { errorBody, errorHeaders, jsonBody, sseEvents, streams } from "./_mock_wire.ts";

export {
  CONTEXT_LENGTH_MESSAGE,
  type MockErrorReply,
  type MockProtocol,
  type MockReply,
  mockReply,
  type MockRequest,
  type MockResponder,
  type MockToolCall,
  type MockUsage,
} from "./_mock_reply.ts";

/**
 * Options of {@link MockLlmServer.start}.
 *
 * @example
 * ```ts
 * import { MockLlmServer, type MockLlmServerOptions } from "@bub/core/testing";
 * const options: MockLlmServerOptions = { script: [{ text: "hi" }], port: 0, latencyMs: 10 };
 * await using server = await MockLlmServer.start(options);
 * ```
 */
export interface MockLlmServerOptions {
  /**
   * Replies consumed in order (an item may be a function of the request), or one function
   * answering every request. Once the list is used up, requests get HTTP 500.
   */
  script?: Array<MockReply | MockResponder> | MockResponder;
  /** The port to listen on (default: a random free port). */
  port?: number;
  /**
   * Milliseconds every model request waits before its response starts (a model's fixed time to
   * first token), on top of any per-reply `delayMs`. Default 0.
   */
  latencyMs?: number;
}

function protocolOf(path: string): MockProtocol | null {
  const pathname = path.split("?")[0]!.replace(/\/+$/, "");
  if (pathname.endsWith("/chat/completions")) return "chat";
  if (pathname.endsWith("/responses")) return "responses";
  if (pathname.endsWith("/messages")) return "anthropic";
  if (/\/models\/[^/]+:(stream)?generateContent$/i.test(pathname)) return "gemini";
  if (/\/model\/[^/]+\/converse(-stream)?$/.test(pathname)) return "bedrock";
  return null;
}

function sleep(ms: number, closed: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (closed.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      closed.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    closed.addEventListener("abort", done, { once: true });
  });
}

/**
 * The mock LLM server. Give `server.url` to a provider as its API base.
 *
 * @example Scripted text and a tool call
 * ```ts
 * import assert from "node:assert/strict";
 * import { MockLlmServer, mockReply } from "@bub/core/testing";
 * await using server = await MockLlmServer.start({
 *   script: [mockReply.toolCall("bash", { cmd: "ls" }), mockReply.text("done", { chunks: 2 })],
 * });
 * const response = await fetch(`${server.url}/chat/completions`, {
 *   method: "POST",
 *   body: JSON.stringify({ model: "m", messages: [], stream: false }),
 * });
 * assert.ok((await response.json()).choices[0].message.tool_calls.length === 1);
 * assert.ok(server.requests.length === 1);
 * ```
 */
export class MockLlmServer implements AsyncDisposable {
  /** Every request received, in order. */
  readonly requests: MockRequest[] = [];
  #http: LoopbackServer;
  #queue: Array<MockReply | MockResponder>;
  #responder: MockResponder | null;
  #closing = new AbortController();
  #latencyMs: number;

  private constructor(http: LoopbackServer, options: MockLlmServerOptions) {
    this.#http = http;
    this.#latencyMs = options.latencyMs ?? 0;
    this.#queue = Array.isArray(options.script) ? [...options.script] : [];
    this.#responder = typeof options.script === "function" ? options.script : null;
  }

  /** Starts a server on 127.0.0.1. */
  static async start(options: MockLlmServerOptions = {}): Promise<MockLlmServer> {
    const latency = options.latencyMs;
    if (latency !== undefined && !(Number.isFinite(latency) && latency >= 0)) {
      throw new BubError(
        "invalid_input",
        `MockLlmServer latencyMs must be a finite number >= 0, got ${JSON.stringify(latency)}`,
        { key: "latencyMs", value: latency },
      );
    }
    return await startFakeServer({
      create: (http) => new MockLlmServer(http, options),
      handle: (server, req, res) => server.#handle(req, res),
      port: options.port,
    });
  }

  /** The API base to give a provider: `http://127.0.0.1:<port>/v1`. */
  get url(): string {
    return `http://127.0.0.1:${this.#http.port}/v1`;
  }

  /**
   * The builtin settings that point Bub at this server: `BUB_MODEL=custom:demo` (any
   * OpenAI-compatible server), `BUB_API_BASE` = {@link url} and a placeholder key.
   *
   * @example
   * ```ts
   * import { BubFramework } from "@bub/core";
   * import { demoResponder, MockLlmServer } from "@bub/core/testing";
   * await using model = await MockLlmServer.start({ script: demoResponder });
   * const bub = new BubFramework({ builtin: { env: model.env } });
   * console.assert(model.env.BUB_API_BASE === model.url && bub.home !== "");
   * ```
   */
  get env(): { BUB_MODEL: string; BUB_API_BASE: string; BUB_API_KEY: string } {
    return { BUB_MODEL: "custom:demo", BUB_API_BASE: this.url, BUB_API_KEY: "demo" };
  }

  /** The port listened on. */
  get port(): number {
    return this.#http.port;
  }

  /** Scripted replies not used yet. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Appends replies to the script. */
  push(...replies: Array<MockReply | MockResponder>): void {
    this.#queue.push(...replies);
  }

  /** Stops listening and drops open connections. Idempotent. */
  close(): Promise<void> {
    this.#closing.abort();
    return this.#http.close();
  }

  /** Same as {@link MockLlmServer.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #nextReply(request: MockRequest): Promise<MockReply> {
    const item = this.#queue.shift() ?? this.#responder;
    if (!item) {
      return {
        error: {
          status: 500,
          message: `MockLlmServer: no scripted reply left for request #${this.requests.length}`,
        },
      };
    }
    return typeof item === "function" ? await item(request) : item;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = new TextDecoder().decode(await readBody(req));
    let body: unknown = text;
    try {
      body = text === "" ? null : JSON.parse(text);
    } catch { /* keep the raw text */ }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
    }
    const path = req.url ?? "/";
    const protocol = protocolOf(path);
    if (!protocol || req.method !== "POST") {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `Not found: ${req.method} ${path}` } }));
      return;
    }
    const request: MockRequest = {
      method: req.method,
      path,
      headers,
      body,
      rawBody: text,
      protocol,
    };
    this.requests.push(request);
    let reply: MockReply;
    try {
      reply = await this.#nextReply(request);
    } catch (error) {
      reply = { error: { status: 500, message: `MockLlmServer responder failed: ${error}` } };
    }
    if (this.#latencyMs > 0) await sleep(this.#latencyMs, this.#closing.signal);
    const json = (body !== null && typeof body === "object" ? body : {}) as Record<string, unknown>;
    if (reply.error) {
      res.writeHead(reply.error.status, {
        "content-type": "application/json",
        ...errorHeaders(protocol, reply.error),
        ...reply.error.headers,
      });
      res.end(errorBody(protocol, reply.error));
      return;
    }
    if (!streams(protocol, path, json)) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(jsonBody(protocol, reply, json, path)));
      return;
    }
    await this.#stream(res, sseEvents(protocol, reply, json, path), reply, protocol);
  }

  /** Sends nothing (or only keep-alive comments) until the client or the server goes. */
  async #stall(
    res: ServerResponse,
    reply: MockReply,
    gone: AbortSignal,
    binary: boolean,
  ): Promise<void> {
    // A binary event stream has no comments: a stalled one sends nothing.
    const every = binary ? undefined : reply.stallKeepAliveMs;
    while (!gone.aborted) {
      await sleep(every ?? 60_000, gone);
      if (!gone.aborted && every) res.write(": keep-alive\n\n");
    }
    res.destroy();
  }

  async #stream(
    res: ServerResponse,
    events: Array<string | Uint8Array>,
    reply: MockReply,
    protocol: MockProtocol,
  ): Promise<void> {
    const binary = protocol === "bedrock";
    const gone = new AbortController();
    const onClose = () => gone.abort();
    res.on("close", onClose);
    this.#closing.signal.addEventListener("abort", onClose, { once: true });
    try {
      res.writeHead(200, {
        "content-type": binary ? "application/vnd.amazon.eventstream" : "text/event-stream",
        "cache-control": "no-cache",
        connection: "keep-alive",
      });
      res.flushHeaders();
      for (let i = 0; i < events.length; i++) {
        if (gone.signal.aborted) return;
        if (i > 0 && reply.delayMs) await sleep(reply.delayMs, gone.signal);
        if (gone.signal.aborted) return;
        if (reply.truncateAfter !== undefined && i >= reply.truncateAfter) {
          res.destroy();
          return;
        }
        if (reply.stallAfter !== undefined && i >= reply.stallAfter) {
          await this.#stall(res, reply, gone.signal, binary);
          return;
        }
        res.write(events[i]);
      }
      if (reply.stallAfter !== undefined && events.length <= reply.stallAfter) {
        await this.#stall(res, reply, gone.signal, binary);
        return;
      }
      res.end();
    } finally {
      res.off("close", onClose);
      this.#closing.signal.removeEventListener("abort", onClose);
    }
  }
}
