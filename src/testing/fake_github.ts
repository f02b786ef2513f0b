/**
 * A fake GitHub on 127.0.0.1 for tests: the REST calls the Chat SDK's GitHub adapter makes for
 * issue comments (`GET /user`, `POST …/issues/<n>/comments`, `PATCH …/issues/comments/<id>`,
 * anything else answers `{}`), a sender of signed `issue_comment` webhooks
 * (`X-Hub-Signature-256`), and comment attachments as GitHub serves them: an attachment URL
 * (`/user-attachments/assets/<id>`, `/user-attachments/files/<n>/<name>`; a private one answers
 * 404 without the token) redirects to a signed storage URL (`/storage/<id>?jwt=…`) that serves
 * the bytes. Attachment requests are logged as `attachment`, storage requests as `storage`.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type LoopbackServer, parseParams, readBody, reply, startFakeServer } from "./_http.ts";
import { type FakeApiCall, FakeCallLog, hmacHex } from "./_fake_calls.ts";
import { FakeFiles } from "./_fake_files.ts";

/**
 * A GitHub user of the fake.
 *
 * @example
 * ```ts
 * import type { FakeGitHubUser } from "@bub/core/testing";
 * const ada: FakeGitHubUser = { id: 501, login: "ada" };
 * ```
 */
export interface FakeGitHubUser {
  /** The numeric id. */
  readonly id: number;
  /** The login. */
  readonly login: string;
}

/**
 * Options of one delivered webhook.
 *
 * @example
 * ```ts
 * import type { GitHubDeliveryOptions } from "@bub/core/testing";
 * const forged: GitHubDeliveryOptions = { secret: "not the webhook secret" };
 * ```
 */
export interface GitHubDeliveryOptions {
  /** The `X-GitHub-Delivery` id (default: a fresh one); a redelivery reuses it. */
  deliveryId?: string;
  /** Signs with this secret instead of the real one (a forgery). */
  secret?: string;
  /** Leaves the signature header out. */
  unsigned?: boolean;
}

/**
 * The fake GitHub.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FakeGitHubServer } from "@bub/core/testing";
 * await using github = await FakeGitHubServer.start();
 * const response = await fetch(`${github.apiBase}/user`, {
 *   headers: { authorization: `token ${github.token}` },
 * });
 * assert.equal((await response.json()).login, github.bot.login);
 * ```
 */
export class FakeGitHubServer implements AsyncDisposable {
  /** The token the bot uses. */
  readonly token = "ghp_fake_github_token";
  /** The webhook secret. */
  readonly webhookSecret = "fake-github-webhook-secret";
  /** The bot's account. */
  readonly bot: FakeGitHubUser = { id: 9000, login: "bub" };
  /** The API calls received. */
  readonly log: FakeCallLog = new FakeCallLog();
  #http: LoopbackServer;
  #nextId = 1000;
  #comments = new Map<number, { issue: string; body: string }>();
  #files = new FakeFiles();
  #attachments = new Map<string, { id: string; private: boolean; location: string | null }>();

  private constructor(http: LoopbackServer) {
    this.#http = http;
  }

  /** Starts the fake on a free port. */
  static async start(): Promise<FakeGitHubServer> {
    return await startFakeServer({
      create: (http) => new FakeGitHubServer(http),
      handle: (github, req, res) => github.#handle(req, res),
      errorBody: (error) => ({ message: String(error) }),
    });
  }

  /** The REST API base (`http://127.0.0.1:<port>`), Bub's `api_base`. */
  get apiBase(): string {
    return `http://127.0.0.1:${this.#http.port}`;
  }

  /** The bot's comments on `owner/repo#number` (their latest text), in order. */
  commentsOn(repo: string, number: number): string[] {
    const issue = `${repo}#${number}`;
    return [...this.#comments.values()].filter((c) => c.issue === issue).map((c) => c.body);
  }

  /**
   * Holds an attachment and returns its URL, which redirects to its signed storage URL (or to
   * `location`): an image's `/user-attachments/assets/<id>`, another file's
   * `/user-attachments/files/<n>/<name>`. A `private` one answers 404 without the bot's token.
   */
  addAttachment(
    name: string,
    mimeType: string,
    data: Uint8Array,
    options: { private?: boolean; location?: string } = {},
  ): string {
    const id = crypto.randomUUID();
    this.#files.set(id, { name, mimeType, data });
    const path = mimeType.startsWith("image/")
      ? `/user-attachments/assets/${id}`
      : `/user-attachments/files/${this.#nextId++}/${encodeURIComponent(name)}`;
    this.#attachments.set(path, {
      id,
      private: options.private ?? false,
      location: options.location ?? null,
    });
    return `${this.apiBase}${path}`;
  }

  /** An `issue_comment` (`created`) payload: `user` comments `body` on `owner/repo#number`. */
  commentEvent(
    user: FakeGitHubUser,
    body: string,
    options: { repo?: string; number?: number; commentId?: number } = {},
  ): Record<string, unknown> {
    const [owner = "acme", name = "app"] = (options.repo ?? "acme/app").split("/");
    const now = new Date().toISOString();
    const account = { id: user.id, login: user.login, type: "User" };
    return {
      action: "created",
      issue: { number: options.number ?? 1, title: "An issue", state: "open", user: account },
      comment: {
        id: options.commentId ?? this.#nextId++,
        body,
        user: account,
        created_at: now,
        updated_at: now,
        html_url: `https://github.test/${owner}/${name}/issues/${options.number ?? 1}`,
      },
      repository: {
        id: 1,
        name,
        full_name: `${owner}/${name}`,
        owner: { login: owner, id: 1, type: "Organization" },
      },
      sender: account,
    };
  }

  /** POSTs `payload` to `url` as GitHub does (signed unless told otherwise). */
  async deliver(
    url: string,
    payload: Record<string, unknown>,
    options: GitHubDeliveryOptions = {},
  ): Promise<Response> {
    const body = JSON.stringify(payload);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "x-github-event": "issue_comment",
      "x-github-delivery": options.deliveryId ?? crypto.randomUUID(),
    };
    if (!options.unsigned) {
      headers["x-hub-signature-256"] = `sha256=${
        hmacHex(options.secret ?? this.webhookSecret, body)
      }`;
    }
    return await fetch(url, { method: "POST", headers, body });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const body = await readBody(req);
    const params = parseParams(req, body, url);
    const verb = req.method ?? "GET";
    const method = `${verb} ${url.pathname}`;
    const authorization = String(req.headers.authorization ?? "");
    const attachment = this.#attachments.get(url.pathname);
    if (attachment) {
      this.log.record({ method: "attachment", params: { path: url.pathname }, authorization });
      if (attachment.private && authorization !== `Bearer ${this.token}`) {
        return reply(res, 404, { message: "Not Found" });
      }
      const signed = `${this.apiBase}/storage/${attachment.id}?jwt=signed-${attachment.id}`;
      res.writeHead(302, { location: attachment.location ?? signed }).end();
      return;
    }
    const stored = /^\/storage\/([^/]+)$/.exec(url.pathname);
    if (stored) {
      this.log.record({ method: "storage", params: { path: url.pathname }, authorization });
      if (url.searchParams.get("jwt") !== `signed-${stored[1]}`) {
        return reply(res, 403, { message: "Bad signature" });
      }
      return this.#files.serve(res, stored[1]!);
    }
    this.log.record({ method, params, authorization });
    if (!authorization.endsWith(this.token)) {
      return reply(res, 401, { message: "Bad credentials" });
    }
    const now = new Date().toISOString();
    const me = { id: this.bot.id, login: this.bot.login, type: "Bot" };
    if (verb === "GET" && url.pathname === "/user") return reply(res, 200, me);
    const create = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/.exec(url.pathname);
    if (verb === "POST" && create) {
      const id = this.#nextId++;
      const text = String(params.body ?? "");
      this.#comments.set(id, { issue: `${create[1]}/${create[2]}#${create[3]}`, body: text });
      return reply(res, 201, { id, body: text, user: me, created_at: now, updated_at: now });
    }
    const edit = /^\/repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/.exec(url.pathname);
    if (verb === "PATCH" && edit) {
      const comment = this.#comments.get(Number(edit[1]));
      if (!comment) return reply(res, 404, { message: "Not Found" });
      comment.body = String(params.body ?? "");
      return reply(res, 200, {
        id: Number(edit[1]),
        body: comment.body,
        user: me,
        created_at: now,
        updated_at: now,
      });
    }
    reply(res, 200, {});
  }

  /** The calls of `method` (`POST /repos/acme/app/issues/1/comments`). */
  callsOf(method: string): FakeApiCall[] {
    return this.log.of(method);
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
