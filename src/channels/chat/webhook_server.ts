/**
 * The one HTTP server of the webhook chat platforms (Slack Events API, GitHub, Linear, Google
 * Chat): `POST /webhooks/<platform>` goes to that platform's handler, which verifies the signature
 * itself (a forged or missing one gets 401). It listens while at least one platform is
 * registered, on `webhook_host` (default 127.0.0.1) / `webhook_port`, served by Hono on every
 * runtime like the web console; a body over the limit is refused with 413 while it streams in.
 *
 * @module
 */
import { readBounded } from "../../_internal/bounded_read.ts";
import { getLogger } from "../../_internal/log.ts";
import { BubError } from "../../kernel/errors.ts";
import { type ListeningServer, serveFetch } from "../web/serve.ts";

const logger = getLogger(["bub", "channels", "webhooks"]);

/**
 * The default body limit of one webhook request: 1 MiB (Slack and GitHub send far less).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_WEBHOOK_MAX_BODY_BYTES } from "@bub/core/channels";
 * assert.equal(DEFAULT_WEBHOOK_MAX_BODY_BYTES, 1024 * 1024);
 * ```
 */
export const DEFAULT_WEBHOOK_MAX_BODY_BYTES: number = 1024 * 1024;

/**
 * Handles one webhook request of a platform (it verifies the signature itself).
 *
 * @example
 * ```ts
 * import type { WebhookHandler } from "@bub/core/channels";
 * const handler: WebhookHandler = async (request) =>
 *   request.headers.get("x-signature") ? new Response("ok") : new Response("no", { status: 401 });
 * ```
 */
export type WebhookHandler = (request: Request) => Promise<Response>;

/**
 * Options of {@link WebhookServer}.
 *
 * @example
 * ```ts
 * import { WebhookServer, type WebhookServerOptions } from "@bub/core/channels";
 * const options: WebhookServerOptions = { host: "127.0.0.1", port: 8788, maxBodyBytes: 65536 };
 * new WebhookServer(options); // listens once a platform registers
 * ```
 */
export interface WebhookServerOptions {
  /** Host to bind. @default "127.0.0.1" */
  host?: string;
  /** Port to listen on (0 = any free one). @default 8788 */
  port?: number;
  /** Largest accepted body in bytes. @default 1 MiB */
  maxBodyBytes?: number;
  /** Prints a line (the gateway's output) when the server listens. */
  print?: (line: string) => void;
}

/**
 * The shared webhook server: each platform {@link register}s its handler when its channel starts
 * and disposes the registration when it stops; the first registration starts listening, the last
 * disposal closes the server.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WebhookServer } from "@bub/core/channels";
 * const server = new WebhookServer({ port: 0 });
 * await using _route = await server.register("demo", async () => new Response("ok"));
 * const response = await fetch(`${server.url}/webhooks/demo`, { method: "POST", body: "{}" });
 * assert.equal(await response.text(), "ok");
 * ```
 */
export class WebhookServer {
  readonly #host: string;
  readonly #port: number;
  readonly #limit: number;
  readonly #print: ((line: string) => void) | null;
  readonly #routes = new Map<string, WebhookHandler>();
  #server: Promise<ListeningServer> | null = null;
  #listening: ListeningServer | null = null;

  /**
   * Creates the server (it listens once a platform registers).
   *
   * @param options host, port, body limit and the line printer
   * @throws {BubError} (`config`) for a bad port or body limit
   */
  constructor(options: WebhookServerOptions = {}) {
    this.#host = options.host || "127.0.0.1";
    this.#port = options.port ?? 8788;
    this.#limit = options.maxBodyBytes ?? DEFAULT_WEBHOOK_MAX_BODY_BYTES;
    if (!Number.isInteger(this.#port) || this.#port < 0 || this.#port > 65535) {
      throw new BubError("config", `Invalid webhook_port ${this.#port}: use 0..65535`);
    }
    if (!Number.isSafeInteger(this.#limit) || this.#limit < 1) {
      throw new BubError("config", `Invalid webhook body limit ${this.#limit}: use bytes >= 1`);
    }
    this.#print = options.print ?? null;
  }

  /** `http://host:port` while listening; throws before. */
  get url(): string {
    const server = this.#listening;
    if (!server) throw new BubError("unknown", "The webhook server is not listening");
    const host = server.host.includes(":") ? `[${server.host}]` : server.host;
    return `http://${host}:${server.port}`;
  }

  /**
   * Routes `POST /webhooks/<platform>` to `handler`, starting the server if needed; disposing the
   * result removes the route (and closes the server after the last one).
   *
   * @throws {BubError} (`config`) when the platform is registered already or the port is taken
   */
  async register(platform: string, handler: WebhookHandler): Promise<AsyncDisposable> {
    if (this.#routes.has(platform)) {
      throw new BubError("config", `A webhook handler for ${platform} is registered already`);
    }
    this.#routes.set(platform, handler);
    try {
      await (this.#server ??= this.#listen());
    } catch (error) {
      this.#routes.delete(platform);
      this.#server = null;
      throw error;
    }
    return { [Symbol.asyncDispose]: () => this.#unregister(platform, handler) };
  }

  async #unregister(platform: string, handler: WebhookHandler): Promise<void> {
    if (this.#routes.get(platform) !== handler) return;
    this.#routes.delete(platform);
    if (this.#routes.size > 0 || !this.#server) return;
    const server = this.#server;
    this.#server = null;
    this.#listening = null;
    await (await server.catch(() => null))?.close();
  }

  async #listen(): Promise<ListeningServer> {
    const { Hono } = await import("hono");
    const app = new Hono();
    app.post("/webhooks/:platform", (c) => this.#handle(c.req.param("platform"), c.req.raw));
    app.all("*", (c) => c.text("Not found", 404));
    let server: ListeningServer;
    try {
      server = await serveFetch((request) => app.fetch(request), this.#host, this.#port);
    } catch (error) {
      throw new BubError(
        "config",
        `Cannot listen for webhooks on ${this.#host}:${this.#port} ` +
          `(webhook_host/webhook_port, BUB_WEBHOOK_HOST/BUB_WEBHOOK_PORT): ${
            (error as Error).message
          }`,
        { host: this.#host, port: this.#port },
        { cause: error },
      );
    }
    this.#listening = server;
    logger.info("webhooks.listening url={url}", { url: this.url });
    this.#print?.(`bub gateway: webhooks on ${this.url}/webhooks/<platform>\n`);
    return server;
  }

  async #handle(platform: string, request: Request): Promise<Response> {
    const handler = this.#routes.get(platform);
    if (!handler) return new Response(`No webhook platform ${platform}`, { status: 404 });
    const limit = this.#limit;
    const length = request.headers.get("content-length");
    const tooLarge = () =>
      new BubError("invalid_input", `Webhook body too large: at most ${limit} bytes`);
    let body: Uint8Array;
    try {
      if (length !== null && /^\d+$/.test(length.trim()) && Number(length) > limit) {
        throw tooLarge();
      }
      body = await readBounded(request.body, limit, tooLarge);
    } catch (error) {
      logger.warning("webhooks.refused platform={platform}: {error}", {
        platform,
        error: (error as Error).message,
      });
      return new Response((error as Error).message, { status: 413 });
    }
    const bounded = new Request(request.url, {
      method: "POST",
      headers: request.headers,
      body: body as BodyInit,
    });
    try {
      return await handler(bounded);
    } catch (error) {
      logger.error("webhooks.failed platform={platform}: {error}", {
        platform,
        error: (error as Error).message,
      });
      return new Response("Internal error", { status: 500 });
    }
  }
}
