/**
 * A ChatGPT login (`bub login openai`): the OAuth client of OpenAI's Codex CLI, the token
 * endpoint's grants (authorization code, refresh token) and {@link OpenAIAuth}, which hands out
 * a valid access token: refreshed before it expires and once after the backend refused it, the
 * new tokens written back. Two processes refreshing at once take turns through a lock file and
 * re-read the file first, so the one that comes second uses the tokens the first obtained instead
 * of spending a refresh token that was already used. Every token read or obtained joins the
 * process-wide secret list, so no log, error line or tape record prints it.
 *
 * @module
 */
import { homedir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { expandHome } from "../_internal/home.ts";
import { registerSecrets } from "../_internal/secrets.ts";
import { isRecord } from "../_internal/object.ts";
import { BubError } from "../kernel/errors.ts";
import type { FetchLike } from "./_request_body.ts";
import {
  accountIdOf,
  jwtExpiry,
  type OpenAITokens,
  readTokenFile,
  removeTokenFile,
  withFileLock,
  writeTokenFile,
} from "./_openai_token_file.ts";

export type { OpenAITokens } from "./_openai_token_file.ts";

/** The OAuth client id of OpenAI's Codex CLI, which a ChatGPT subscription login uses. */
export const OPENAI_AUTH_CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann";
/** The default issuer (`openai_auth_base` / `BUB_OPENAI_AUTH_BASE`). */
export const DEFAULT_OPENAI_AUTH_BASE = "https://auth.openai.com";
/** An access token this close to its expiry (ms) is refreshed before use. */
const REFRESH_MARGIN_MS = 120_000;
/** Longest wait for the token endpoint (ms). */
const TOKEN_TIMEOUT_MS = 30_000;

/** Where a ChatGPT login is stored and who refreshes it. */
export interface OpenAIAuthLocation {
  /** The token file, `<BUB_HOME>/auth/openai.json`. */
  file: string;
  /** The issuer base URL (default {@link DEFAULT_OPENAI_AUTH_BASE}). */
  issuer?: string | null;
}

/** Options of {@link OpenAIAuth}. */
export interface OpenAIAuthOptions extends OpenAIAuthLocation {
  /** The `fetch` of token requests (default the global one). */
  fetch?: FetchLike;
  /** The clock (ms since the epoch). */
  now?: () => number;
}

/** What a request to the ChatGPT backend is sent with. */
export interface OpenAICredentials {
  /** The bearer. */
  accessToken: string;
  /** The `chatgpt-account-id` header. */
  accountId: string | null;
}

function issuerOf(issuer: string | null | undefined): string {
  return (issuer || DEFAULT_OPENAI_AUTH_BASE).replace(/\/+$/, "");
}

function rememberSecrets(tokens: OpenAITokens): OpenAITokens {
  registerSecrets([tokens.access_token, tokens.refresh_token, tokens.id_token ?? ""]);
  return tokens;
}

/** The OAuth error code and description of a failed token response, as one phrase. */
function oauthError(body: unknown, status: number): { code: string; text: string } {
  const data = isRecord(body) ? body : {};
  const nested = isRecord(data.error) ? data.error : null;
  const code = String(nested?.code ?? (typeof data.error === "string" ? data.error : "") ?? "");
  const description = String(
    nested?.message ?? data.error_description ?? data.message ?? "",
  );
  const text = [code, description].filter((part) => part !== "").join(": ");
  return { code, text: text || `HTTP ${status}` };
}

/** Options of a token endpoint request. */
export interface TokenRequestOptions {
  /** The issuer base URL. */
  issuer?: string | null;
  /** The `fetch` to use. */
  fetch?: FetchLike;
  /** Cancels the request. */
  signal?: AbortSignal;
  /** The clock (ms since the epoch). */
  now?: () => number;
}

/** POSTs a grant to `<issuer>/oauth/token` and returns the tokens it gives. */
async function tokenGrant(
  params: Record<string, string>,
  options: TokenRequestOptions,
  previous: OpenAITokens | null,
): Promise<OpenAITokens> {
  const url = `${issuerOf(options.issuer)}/oauth/token`;
  const signal = AbortSignal.any([
    AbortSignal.timeout(TOKEN_TIMEOUT_MS),
    ...(options.signal ? [options.signal] : []),
  ]);
  const response = await (options.fetch ?? globalThis.fetch)(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams({ client_id: OPENAI_AUTH_CLIENT_ID, ...params }).toString(),
    signal,
  });
  const text = await response.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch { /* not JSON: reported below */ }
  if (!response.ok) {
    const { code, text: reason } = oauthError(body, response.status);
    const refresh = params.grant_type === "refresh_token";
    const revoked = refresh && (response.status === 400 || response.status === 401) &&
      /invalid_grant|refresh_token|expired|revoked|reused/i.test(`${code} ${reason}`);
    throw new BubError(
      revoked
        ? "config"
        : response.status >= 500 || response.status === 429
        ? "temporary"
        : "provider",
      revoked
        ? `The ChatGPT login has expired or was revoked (${reason}): run 'bub login openai' again`
        : `Token request to ${url} failed with HTTP ${response.status}: ${reason}`,
      { status_code: response.status, grant_type: params.grant_type, error: code || null },
    );
  }
  const data = isRecord(body) ? body : {};
  const access = data.access_token;
  if (typeof access !== "string" || access === "") {
    throw new BubError("provider", `Token response from ${url} has no access_token`, { url });
  }
  const refreshToken = typeof data.refresh_token === "string" && data.refresh_token !== ""
    ? data.refresh_token
    : previous?.refresh_token;
  if (!refreshToken) {
    throw new BubError("provider", `Token response from ${url} has no refresh_token`, { url });
  }
  const idToken = typeof data.id_token === "string" ? data.id_token : previous?.id_token ?? null;
  const now = (options.now ?? Date.now)();
  const expiresIn = Number(data.expires_in);
  const expires = Number.isFinite(expiresIn) && expiresIn > 0
    ? now + expiresIn * 1000
    : jwtExpiry(access) ?? now + 3600_000;
  return rememberSecrets({
    access_token: access,
    refresh_token: refreshToken,
    id_token: idToken,
    account_id: accountIdOf(idToken, access) ?? previous?.account_id ?? null,
    expires_at: new Date(expires).toISOString(),
    last_refresh: new Date(now).toISOString(),
  });
}

/** The arguments of {@link exchangeAuthorizationCode}. */
export interface CodeExchange extends TokenRequestOptions {
  /** The authorization code. */
  code: string;
  /** The PKCE code verifier. */
  codeVerifier: string;
  /** The redirect URI the code was issued for. */
  redirectUri: string;
}

/**
 * Exchanges an authorization code (with its PKCE verifier) for tokens.
 *
 * @throws {BubError} (`provider`, `temporary`) when the token endpoint refuses or fails
 */
export function exchangeAuthorizationCode(exchange: CodeExchange): Promise<OpenAITokens> {
  return tokenGrant(
    {
      grant_type: "authorization_code",
      code: exchange.code,
      redirect_uri: exchange.redirectUri,
      code_verifier: exchange.codeVerifier,
    },
    exchange,
    null,
  );
}

/**
 * The tokens of a ChatGPT login in one file, handed out valid.
 *
 * @example
 * ```ts
 * import { OpenAIAuth } from "./openai_auth.ts";
 * const auth = new OpenAIAuth({ file: "/tmp/bub-example/auth/openai.json" });
 * console.assert((await auth.load()) === null); // not logged in
 * ```
 */
export class OpenAIAuth {
  /** The token file. */
  readonly file: string;
  /** The issuer base URL, without a trailing `/`. */
  readonly issuer: string;
  #fetch: FetchLike | undefined;
  #now: () => number;
  #refreshing: Promise<OpenAITokens> | null = null;

  /** Creates the object; nothing is read yet. */
  constructor(options: OpenAIAuthOptions) {
    this.file = options.file;
    this.issuer = issuerOf(options.issuer);
    this.#fetch = options.fetch;
    this.#now = options.now ?? Date.now;
  }

  /** The stored tokens, or null when not logged in. */
  async load(): Promise<OpenAITokens | null> {
    const tokens = await readTokenFile(this.file);
    return tokens && rememberSecrets(tokens);
  }

  /** Stores `tokens` (atomically, mode 0600). */
  async save(tokens: OpenAITokens): Promise<void> {
    await writeTokenFile(this.file, rememberSecrets(tokens));
  }

  /** Removes the login; false when there was none. */
  remove(): Promise<boolean> {
    return removeTokenFile(this.file);
  }

  /**
   * A valid access token and the account id. Refreshes first when the stored token expires
   * within two minutes or is `rejected` (the token the backend just answered 401 to).
   *
   * @throws {BubError} (`config`) when not logged in or the login was revoked
   */
  async credentials(
    options: { signal?: AbortSignal; rejected?: string } = {},
  ): Promise<OpenAICredentials> {
    const tokens = await this.load();
    if (tokens === null) {
      throw new BubError(
        "config",
        `Not logged in to ChatGPT: run 'bub login openai' (no ${this.file})`,
        { file: this.file },
      );
    }
    let current = tokens;
    if (this.#stale(tokens, options.rejected)) {
      this.#refreshing ??= this.#refresh(options).finally(() => {
        this.#refreshing = null;
      });
      current = await this.#refreshing;
    }
    return { accessToken: current.access_token, accountId: current.account_id };
  }

  #stale(tokens: OpenAITokens, rejected: string | undefined): boolean {
    if (rejected !== undefined && tokens.access_token === rejected) return true;
    const expires = Date.parse(tokens.expires_at);
    return !(expires - this.#now() > REFRESH_MARGIN_MS);
  }

  /** Refreshes under the lock; another process's fresh tokens, re-read, are used as they are. */
  #refresh(options: { signal?: AbortSignal; rejected?: string }): Promise<OpenAITokens> {
    return withFileLock(`${this.file}.lock`, async () => {
      const current = await this.load();
      if (current === null) {
        throw new BubError("config", `Not logged in to ChatGPT: run 'bub login openai'`, {
          file: this.file,
        });
      }
      if (!this.#stale(current, options.rejected)) return current;
      let fresh: OpenAITokens;
      try {
        fresh = await tokenGrant(
          {
            grant_type: "refresh_token",
            refresh_token: current.refresh_token,
            scope: "openid profile email",
          },
          { issuer: this.issuer, fetch: this.#fetch, signal: options.signal, now: this.#now },
          current,
        );
      } catch (error) {
        // The refresh failed for a passing reason: a token that still works is used meanwhile.
        const usable = options.rejected !== current.access_token &&
          Date.parse(current.expires_at) > this.#now();
        if (usable && BubError.isInstance(error) && error.kind !== "config") return current;
        throw error;
      }
      await writeTokenFile(this.file, fresh);
      return fresh;
    }, { signal: options.signal });
  }
}

/**
 * The login of the default Bub home: `<BUB_HOME>/auth/openai.json` (`BUB_HOME` read now, else
 * `~/.bub`), at the default issuer (`BUB_OPENAI_AUTH_BASE` read now, else
 * {@link DEFAULT_OPENAI_AUTH_BASE}).
 */
export function defaultOpenAIAuthLocation(): OpenAIAuthLocation {
  const home = process.env.BUB_HOME
    ? expandHome(process.env.BUB_HOME, homedir())
    : join(homedir(), ".bub");
  return { file: openAIAuthFile(home), issuer: process.env.BUB_OPENAI_AUTH_BASE || null };
}

/** The token file of a Bub home: `<home>/auth/openai.json`. */
export function openAIAuthFile(bubHome: string): string {
  return join(bubHome, "auth", "openai.json");
}

const shared = new Map<string, OpenAIAuth>();

/**
 * The one {@link OpenAIAuth} of a location in this process (its in-flight refresh is shared by
 * every caller).
 */
export function sharedOpenAIAuth(location: OpenAIAuthLocation): OpenAIAuth {
  const key = `${location.file}\0${issuerOf(location.issuer)}`;
  let auth = shared.get(key);
  if (auth === undefined) {
    auth = new OpenAIAuth(location);
    shared.set(key, auth);
  }
  return auth;
}
