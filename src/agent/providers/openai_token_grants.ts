/**
 * The token endpoint of a ChatGPT login (`<issuer>/oauth/token`) as the Codex CLI's OAuth client
 * uses it: the authorization-code grant (with the PKCE verifier) and the refresh-token grant.
 * Failures are `BubError`s that say what the endpoint answered; a refused refresh token says to
 * log in again. Every token obtained joins the process-wide secret list.
 *
 * @module
 */
import { registerSecrets } from "../../_internal/secrets.ts";
import { isRecord } from "../../_internal/object.ts";
import { BubError } from "../../kernel/errors.ts";
import type { FetchLike } from "./_request_body.ts";
import { accountIdOf, jwtExpiry, type OpenAITokens } from "./_openai_token_file.ts";

/** The OAuth client id of OpenAI's Codex CLI, which a ChatGPT subscription login uses. */
export const OPENAI_AUTH_CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann";
/** The default issuer (`openai_auth_base` / `BUB_OPENAI_AUTH_BASE`). */
export const DEFAULT_OPENAI_AUTH_BASE = "https://auth.openai.com";
/** Longest wait for the token endpoint (ms). */
const TOKEN_TIMEOUT_MS = 30_000;

/** The issuer base URL without a trailing `/` (default {@link DEFAULT_OPENAI_AUTH_BASE}). */
export function issuerOf(issuer: string | null | undefined): string {
  return (issuer || DEFAULT_OPENAI_AUTH_BASE).replace(/\/+$/, "");
}

/** Registers the tokens as secrets; returns them. */
export function rememberSecrets(tokens: OpenAITokens): OpenAITokens {
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
export async function tokenGrant(
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
