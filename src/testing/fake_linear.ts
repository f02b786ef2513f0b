/**
 * A fake Linear on 127.0.0.1 for tests: the GraphQL operations the Chat SDK's Linear adapter
 * runs for issue comments (the viewer, `commentCreate`, `commentUpdate`, `comment(id)`; anything
 * else answers a GraphQL error), a one-shot rate-limit answer as Linear gives it (HTTP 400,
 * `RATELIMITED`, `X-RateLimit-Requests-Reset`), a sender of signed `Comment` webhooks
 * (`linear-signature`, `webhookTimestamp`), and file storage: uploads served to the API key only
 * (logged as `upload`), `fileUpload` answering a signed PUT URL (PUTs logged as `storage`).
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type LoopbackServer, readBody, reply, startFakeServer } from "./_http.ts";
import { type FakeApiCall, FakeCallLog, hmacHex } from "./_fake_calls.ts";
import type { FakePutFile } from "./_fake_files.ts";
import { FakeLinearFiles } from "./_linear_files.ts";

/**
 * A Linear user of the fake.
 *
 * @example
 * ```ts
 * import type { FakeLinearUser } from "@bub/core/testing";
 * const ada: FakeLinearUser = { id: "user-ada", name: "ada" };
 * ```
 */
export interface FakeLinearUser {
  /** The user id. */
  readonly id: string;
  /** The user name (the profile URL's last part, which `allow_users` may list). */
  readonly name: string;
}

/**
 * Options of one delivered webhook.
 *
 * @example
 * ```ts
 * import type { LinearDeliveryOptions } from "@bub/core/testing";
 * const stale: LinearDeliveryOptions = { timestamp: Date.now() - 5 * 60_000 };
 * ```
 */
export interface LinearDeliveryOptions {
  /** Signs with this secret instead of the real one (a forgery). */
  secret?: string;
  /** Leaves the signature header out. */
  unsigned?: boolean;
  /** The `webhookTimestamp` (ms) to send (default: now). */
  timestamp?: number;
}

interface StoredComment {
  id: string;
  issueId: string;
  parentId: string | null;
  body: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * The fake Linear.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FakeLinearServer } from "@bub/core/testing";
 * await using linear = await FakeLinearServer.start();
 * const response = await fetch(linear.apiBase, {
 *   method: "POST",
 *   headers: { authorization: linear.apiKey, "content-type": "application/json" },
 *   body: JSON.stringify({ query: "query Me { viewer { id } }" }),
 * });
 * assert.equal((await response.json()).data.viewer.id, linear.bot.id);
 * ```
 */
export class FakeLinearServer implements AsyncDisposable {
  /** The personal API key the bot uses. */
  readonly apiKey = "lin_api_fake_linear_key";
  /** The webhook signing secret. */
  readonly webhookSecret = "fake-linear-webhook-secret";
  /** The bot's account. */
  readonly bot: FakeLinearUser = { id: "user-bub", name: "bub" };
  /** The workspace (organization) id. */
  readonly organizationId = "org-acme";
  /** The GraphQL calls received (`method` is the operation name, `params` its variables). */
  readonly log: FakeCallLog = new FakeCallLog();
  #http: LoopbackServer;
  #nextId = 1000;
  #comments = new Map<string, StoredComment>();
  #rateLimited = new Map<string, number>();
  #files: FakeLinearFiles = new FakeLinearFiles(
    () => `http://127.0.0.1:${this.#http.port}`,
    this.organizationId,
  );

  private constructor(http: LoopbackServer) {
    this.#http = http;
  }

  /** Starts the fake on a free port. */
  static async start(): Promise<FakeLinearServer> {
    return await startFakeServer({
      create: (http) => new FakeLinearServer(http),
      handle: (linear, req, res) => linear.#handle(req, res),
      errorBody: (error) => ({ errors: [{ message: String(error) }] }),
    });
  }

  /** The GraphQL endpoint (`http://127.0.0.1:<port>/graphql`), Bub's `api_base`. */
  get apiBase(): string {
    return `http://127.0.0.1:${this.#http.port}/graphql`;
  }

  /** Holds an upload (as `uploads.linear.app` does) and returns its URL. */
  addUpload(name: string, mimeType: string, data: Uint8Array): string {
    return this.#files.add(name, mimeType, data);
  }

  /** The files PUT to the storage URLs `fileUpload` answered, in order. */
  get uploads(): readonly FakePutFile[] {
    return this.#files.puts;
  }

  /** The bot's comments on `issueId` (their latest text), in order. */
  commentsOn(issueId: string): string[] {
    return [...this.#comments.values()].filter((c) => c.issueId === issueId).map((c) => c.body);
  }

  /**
   * Answers the next `times` calls of `operation` (`createComment`, `updateComment`) with
   * Linear's rate-limit error (logged with `rateLimited: true` in their params).
   */
  rateLimit(operation: string, times = 1): void {
    this.#rateLimited.set(operation, times);
  }

  /** The calls of a GraphQL operation (`createComment`). */
  callsOf(operation: string): FakeApiCall[] {
    return this.log.of(operation);
  }

  /** A `Comment` `create` payload: `user` comments `body` on `issueId` (under `parentId`). */
  commentEvent(
    user: FakeLinearUser,
    body: string,
    options: { issueId?: string; commentId?: string; parentId?: string } = {},
  ): Record<string, unknown> {
    const now = new Date().toISOString();
    const id = options.commentId ?? `comment-${this.#nextId++}`;
    const issueId = options.issueId ?? "issue-1";
    return {
      action: "create",
      type: "Comment",
      createdAt: now,
      organizationId: this.organizationId,
      url: `https://linear.app/acme/issue/ACM-1#comment-${id}`,
      webhookId: "webhook-1",
      data: {
        id,
        body,
        issueId,
        parentId: options.parentId ?? null,
        userId: user.id,
        createdAt: now,
        updatedAt: now,
        user: {
          id: user.id,
          name: user.name,
          email: `${user.name}@acme.test`,
          url: `https://linear.app/acme/profiles/${user.name}`,
        },
      },
    };
  }

  /** POSTs `payload` to `url` as Linear does (signed, stamped with the time of sending). */
  async deliver(
    url: string,
    payload: Record<string, unknown>,
    options: LinearDeliveryOptions = {},
  ): Promise<Response> {
    const body = JSON.stringify({ ...payload, webhookTimestamp: options.timestamp ?? Date.now() });
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "linear-event": "Comment",
      "linear-delivery": crypto.randomUUID(),
    };
    if (!options.unsigned) {
      headers["linear-signature"] = hmacHex(options.secret ?? this.webhookSecret, body);
    }
    return await fetch(url, { method: "POST", headers, body });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const url = new URL(req.url ?? "/", "http://x");
    const context = { log: this.log, apiKey: this.apiKey };
    if (this.#files.handle(req, res, url, body, context)) return;
    const text = new TextDecoder().decode(body);
    const { query = "", variables = {} } = JSON.parse(text || "{}") as {
      query?: string;
      variables?: Record<string, unknown>;
    };
    const operation = /^\s*(?:query|mutation)\s+(\w+)/.exec(query)?.[1] ?? "anonymous";
    const authorization = String(req.headers.authorization ?? "");
    const limited = this.#rateLimited.get(operation) ?? 0;
    const params = limited > 0 ? { ...variables, rateLimited: true } : variables;
    this.log.record({ method: operation, params, authorization });
    if (req.method !== "POST" || url.pathname !== "/graphql") {
      return reply(res, 404, { errors: [{ message: "Not found" }] });
    }
    if (authorization !== this.apiKey) {
      return reply(res, 400, {
        errors: [{
          message: "Authentication required",
          extensions: { type: "authentication error" },
        }],
      });
    }
    if (limited > 0) {
      this.#rateLimited.set(operation, limited - 1);
      res.setHeader("x-ratelimit-requests-reset", String(Date.now() + 200));
      return reply(res, 400, {
        errors: [{
          message: "Rate limit exceeded",
          extensions: { code: "RATELIMITED", type: "ratelimited" },
        }],
      });
    }
    const data = this.#answer(operation, variables);
    if (data === null) {
      return reply(res, 400, { errors: [{ message: `Unknown operation ${operation}` }] });
    }
    reply(res, 200, { data });
  }

  #answer(operation: string, variables: Record<string, unknown>): Record<string, unknown> | null {
    const input = (variables.input ?? {}) as Record<string, unknown>;
    const now = new Date().toISOString();
    const payload = (comment: StoredComment) => ({
      __typename: "CommentPayload",
      comment: { id: comment.id },
      lastSyncId: this.#nextId++,
      success: true,
    });
    const stored = this.#comments.get(String(variables.id ?? ""));
    switch (operation) {
      case "LinearAdapterViewerOrganization":
      case "Me":
        return {
          viewer: {
            id: this.bot.id,
            displayName: this.bot.name,
            organization: { id: this.organizationId },
          },
        };
      case "createComment": {
        const comment: StoredComment = {
          id: `comment-${this.#nextId++}`,
          issueId: String(input.issueId ?? ""),
          parentId: typeof input.parentId === "string" ? input.parentId : null,
          body: String(input.body ?? ""),
          createdAt: now,
          updatedAt: now,
        };
        this.#comments.set(comment.id, comment);
        return { commentCreate: payload(comment) };
      }
      case "updateComment":
        if (!stored) return null;
        stored.body = String(input.body ?? "");
        stored.updatedAt = now;
        return { commentUpdate: payload(stored) };
      case "fileUpload":
        return { fileUpload: this.#files.fileUpload(variables) };
      case "comment":
        if (!stored) return null;
        return {
          comment: {
            ...stored,
            url: `https://linear.app/acme/issue/ACM-1#comment-${stored.id}`,
            reactionData: [],
            reactions: [],
            user: { id: this.bot.id },
          },
        };
      default:
        return null;
    }
  }

  /** Stops the server. */
  close(): Promise<void> {
    return this.#http.close();
  }

  /** Same as {@link close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
