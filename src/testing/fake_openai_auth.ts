/**
 * A real HTTP server on 127.0.0.1 that plays OpenAI's authorization server for a ChatGPT login:
 * the authorize endpoint (redirects to the client's callback with a code), the token endpoint
 * (authorization code with the PKCE verifier checked; refresh tokens that rotate and may be used
 * once), and the Codex device-code endpoints (pending until the test approves the user code,
 * optionally one `slow_down`). Access tokens are JWT-shaped (unsigned) with `exp` and the ChatGPT
 * account claim, so clients read them as they read real ones.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import type { IncomingMessage, ServerResponse } from "node:http";
import { type LoopbackServer, parseParams, readBody, reply, startLoopbackServer } from "./_http.ts";

/** Options of {@link FakeOpenAIAuth.start}. */
export interface FakeOpenAIAuthOptions {
  /** The ChatGPT account id in the tokens (default `acct-fake-1`). */
  accountId?: string;
  /** Lifetime of access tokens, seconds (default 3600). */
  accessTtlSeconds?: number;
  /** The device-code polling interval the server asks for, seconds (default 0.05). */
  interval?: number;
  /** Answer the second device-code poll with `slow_down` (and this new interval). */
  slowDownInterval?: number | null;
  /** Device codes expire this many seconds after being issued (default 900). */
  deviceExpiresSeconds?: number;
  /** Milliseconds the token endpoint waits before answering (default 0). */
  tokenDelayMs?: number;
}

/** A grant the token endpoint answered. */
export interface FakeGrant {
  /** `authorization_code` or `refresh_token`. */
  grantType: string;
  /** Whether tokens were issued. */
  ok: boolean;
  /** The error code when not. */
  error?: string;
}

/** The client id the fake accepts: the Codex CLI's. */
const CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann";

function base64url(data: Uint8Array | string): string {
  return Buffer.from(data).toString("base64url");
}

async function s256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

function randomText(bytes = 24): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** The fake authorization server. `url` is the issuer to configure (`BUB_OPENAI_AUTH_BASE`). */
export class FakeOpenAIAuth implements AsyncDisposable {
  /** Every grant the token endpoint answered, in order. */
  readonly grants: FakeGrant[] = [];
  /** The query of every authorize request. */
  readonly authorizeRequests: Record<string, string>[] = [];
  /** How many device-code polls were answered. */
  devicePolls = 0;
  readonly #options: Required<Omit<FakeOpenAIAuthOptions, "slowDownInterval">> & {
    slowDownInterval: number | null;
  };
  #http!: LoopbackServer;
  #codes = new Map<string, { challenge: string; redirectUri: string }>();
  #refresh = new Set<string>();
  #spent = new Set<string>();
  #access = new Set<string>();
  #devices = new Map<string, { userCode: string; approved: boolean; expires: number }>();

  private constructor(options: FakeOpenAIAuthOptions) {
    this.#options = {
      accountId: options.accountId ?? "acct-fake-1",
      accessTtlSeconds: options.accessTtlSeconds ?? 3600,
      interval: options.interval ?? 0.05,
      slowDownInterval: options.slowDownInterval ?? null,
      deviceExpiresSeconds: options.deviceExpiresSeconds ?? 900,
      tokenDelayMs: options.tokenDelayMs ?? 0,
    };
  }

  /** Starts the server on a free port of 127.0.0.1. */
  static async start(options: FakeOpenAIAuthOptions = {}): Promise<FakeOpenAIAuth> {
    const fake = new FakeOpenAIAuth(options);
    fake.#http = await startLoopbackServer(
      (req, res) => fake.#handle(req, res),
      (res, error) => reply(res, 500, { error: "server_error", error_description: String(error) }),
    );
    return fake;
  }

  /** The issuer base URL. */
  get url(): string {
    return `http://127.0.0.1:${this.#http.port}`;
  }

  /** The account id the tokens carry. */
  get accountId(): string {
    return this.#options.accountId;
  }

  /** True when `authorization` is `Bearer <an access token this server issued and still honours>`. */
  acceptsBearer(authorization: string | undefined): boolean {
    const token = /^Bearer (.+)$/.exec(authorization ?? "")?.[1];
    return token !== undefined && this.#access.has(token);
  }

  /** Stops honouring every access token issued so far (the backend then answers 401). */
  revokeAccessTokens(): void {
    this.#access.clear();
  }

  /** The user enters `userCode` at the verification page and approves. */
  approveDevice(userCode: string): void {
    for (const device of this.#devices.values()) {
      if (device.userCode === userCode) device.approved = true;
    }
  }

  /** Issues a token set directly (a login made earlier), as the token endpoint would. */
  issueTokens(): Record<string, unknown> {
    return this.#tokens();
  }

  /** Stops the server. */
  close(): Promise<void> {
    return this.#http.close();
  }

  /** Same as {@link FakeOpenAIAuth.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #jwt(claims: Record<string, unknown>): string {
    const header = base64url(JSON.stringify({ alg: "none", typ: "JWT" }));
    return `${header}.${base64url(JSON.stringify(claims))}.${randomText(8)}`;
  }

  #tokens(): Record<string, unknown> {
    const exp = Math.floor(Date.now() / 1000) + this.#options.accessTtlSeconds;
    const auth = { "https://api.openai.com/auth": { chatgpt_account_id: this.accountId } };
    const access = this.#jwt({ exp, jti: randomText(8), ...auth });
    const refresh = `rt-${randomText()}`;
    this.#access.add(access);
    this.#refresh.add(refresh);
    return {
      access_token: access,
      refresh_token: refresh,
      id_token: this.#jwt({ exp, email: "user@example.com", ...auth }),
      token_type: "Bearer",
      expires_in: this.#options.accessTtlSeconds,
    };
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.url);
    const params = parseParams(req, await readBody(req), url) as Record<string, string>;
    const route = `${req.method} ${url.pathname}`;
    if (route === "GET /oauth/authorize") return this.#authorize(res, params);
    if (route === "POST /oauth/token") return await this.#token(res, params);
    if (route === "POST /api/accounts/deviceauth/usercode") return this.#userCode(res, params);
    if (route === "POST /api/accounts/deviceauth/token") return await this.#devicePoll(res, params);
    reply(res, 404, { error: "not_found", error_description: route });
  }

  #authorize(res: ServerResponse, query: Record<string, string>): void {
    this.authorizeRequests.push(query);
    const problem = query.client_id !== CLIENT_ID
      ? "unknown client_id"
      : query.response_type !== "code"
      ? "response_type must be code"
      : query.code_challenge_method !== "S256" || !query.code_challenge
      ? "PKCE with S256 is required"
      : !query.redirect_uri?.startsWith("http://localhost:")
      ? "redirect_uri is not registered"
      : !query.state
      ? "state is required"
      : null;
    if (problem) return reply(res, 400, { error: "invalid_request", error_description: problem });
    const code = `code-${randomText()}`;
    this.#codes.set(code, { challenge: query.code_challenge!, redirectUri: query.redirect_uri! });
    const target = new URL(query.redirect_uri!);
    target.searchParams.set("code", code);
    target.searchParams.set("state", query.state!);
    res.writeHead(302, { location: target.toString() });
    res.end();
  }

  async #token(res: ServerResponse, params: Record<string, string>): Promise<void> {
    if (this.#options.tokenDelayMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, this.#options.tokenDelayMs));
    }
    const fail = (grantType: string, error: string, description: string, status = 400) => {
      this.grants.push({ grantType, ok: false, error });
      reply(res, status, { error, error_description: description });
    };
    const grantType = params.grant_type ?? "";
    if (params.client_id !== CLIENT_ID) return fail(grantType, "invalid_client", "unknown client");
    if (grantType === "authorization_code") {
      const issued = this.#codes.get(params.code ?? "");
      this.#codes.delete(params.code ?? "");
      if (!issued) return fail(grantType, "invalid_grant", "unknown or used code");
      if (issued.redirectUri !== params.redirect_uri) {
        return fail(grantType, "invalid_grant", "redirect_uri does not match");
      }
      if (!params.code_verifier || await s256(params.code_verifier) !== issued.challenge) {
        return fail(grantType, "invalid_grant", "PKCE verification failed");
      }
    } else if (grantType === "refresh_token") {
      const token = params.refresh_token ?? "";
      if (this.#spent.has(token)) return fail(grantType, "invalid_grant", "refresh_token_reused");
      if (!this.#refresh.delete(token)) return fail(grantType, "invalid_grant", "unknown token");
      this.#spent.add(token);
    } else return fail(grantType, "unsupported_grant_type", grantType);
    this.grants.push({ grantType, ok: true });
    reply(res, 200, this.#tokens());
  }

  #userCode(res: ServerResponse, params: Record<string, string>): void {
    if (params.client_id !== CLIENT_ID) return reply(res, 400, { error: "invalid_client" });
    const id = `dev-${randomText(8)}`;
    const userCode = `${randomText(3).toUpperCase().slice(0, 4)}-${randomText(3).slice(0, 4)}`;
    const expires = Date.now() + this.#options.deviceExpiresSeconds * 1000;
    this.#devices.set(id, { userCode, approved: false, expires });
    reply(res, 200, {
      device_auth_id: id,
      user_code: userCode,
      interval: String(this.#options.interval),
    });
  }

  async #devicePoll(res: ServerResponse, params: Record<string, string>): Promise<void> {
    this.devicePolls++;
    const device = this.#devices.get(params.device_auth_id ?? "");
    if (!device || device.userCode !== params.user_code) {
      return reply(res, 400, { error: "invalid_request", error_description: "unknown device" });
    }
    if (Date.now() > device.expires) {
      return reply(res, 400, { error: "expired_token", error_description: "code expired" });
    }
    if (this.devicePolls === 2 && this.#options.slowDownInterval !== null) {
      return reply(res, 400, { error: "slow_down", interval: this.#options.slowDownInterval });
    }
    if (!device.approved) return reply(res, 403, { error: "authorization_pending" });
    this.#devices.delete(params.device_auth_id!);
    const verifier = randomText(32);
    const code = `code-${randomText()}`;
    this.#codes.set(code, {
      challenge: await s256(verifier),
      redirectUri: `${this.url}/deviceauth/callback`,
    });
    reply(res, 200, {
      authorization_code: code,
      code_challenge: await s256(verifier),
      code_verifier: verifier,
    });
  }
}
