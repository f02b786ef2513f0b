/**
 * Bot Framework authentication of the Teams channel, done by Bub through the two seams the Chat
 * SDK's Teams adapter offers (`webhookVerifier`, `token`) so that both ends can be pointed
 * elsewhere with `api_base` (the adapter does not pass the Teams SDK a cloud of its own, and
 * MSAL, its token client, accepts only `https` authorities).
 *
 * - Inbound: an activity's `Authorization: Bearer <JWT>` is checked as Bot Framework documents
 *   it: RS256, signed by a key of the JWKS named by the OpenID metadata
 *   (`<base>/v1/.well-known/openidconfiguration`, base `https://login.botframework.com`), that
 *   key endorsed for the activity's `channelId`, issuer `https://api.botframework.com`, audience
 *   the app id, within its lifetime (5 minutes' skew), and its `serviceurl` claim equal to the
 *   activity's `serviceUrl` (replies go there with the bot's token).
 * - Outbound: the bot's token comes from the OAuth 2 client-credentials grant at
 *   `<base>/<tenant>/oauth2/v2.0/token` (base `https://login.microsoftonline.com`, tenant
 *   `botframework.com` unless the app is single-tenant), cached until shortly before it expires.
 *
 * @module
 */
import { getLogger } from "../../_internal/log.ts";
import { BubError } from "../../kernel/errors.ts";

/** Where Bot Framework's OpenID metadata lives. */
export const BOT_FRAMEWORK_OPENID_BASE = "https://login.botframework.com";
/** Where Microsoft Entra issues the bot's tokens. */
export const MICROSOFT_LOGIN_BASE = "https://login.microsoftonline.com";
/** The scope of the bot's tokens for the Bot Connector. */
export const BOT_FRAMEWORK_SCOPE = "https://api.botframework.com/.default";
/** The issuer of the Bot Connector service's tokens. */
export const BOT_FRAMEWORK_ISSUER = "https://api.botframework.com";

/** Clock skew allowed on `exp` / `nbf`, as the Bot Framework SDKs allow. */
const SKEW_SECONDS = 300;
/** How long fetched signing keys are trusted before they are fetched again. */
const KEYS_TTL_MS = 24 * 3600_000;
/** Least time between two fetches for an unknown key id (forged tokens must not hammer it). */
const REFETCH_MS = 60_000;
/** A token is renewed this long before it expires. */
const TOKEN_MARGIN_MS = 5 * 60_000;
/** Longest wait for the login endpoints. */
const TIMEOUT_MS = 30_000;

/** A JSON Web Key of Bot Framework's JWKS (RSA, with the channels it is endorsed for). */
interface BotFrameworkJwk extends JsonWebKey {
  kid?: string;
  endorsements?: unknown;
}

/** What {@link BotFrameworkAuth} needs. */
export interface BotFrameworkAuthOptions {
  /** The bot's Microsoft app id (the tokens' audience; the token grant's client id). */
  readonly appId: string;
  /** The app's client secret. */
  readonly appPassword: string;
  /** The tenant of a single-tenant app; empty = multi-tenant (`botframework.com`). */
  readonly tenantId?: string;
  /** One base for both login hosts (a proxy or a fake); null = Microsoft's. */
  readonly apiBase?: string | null;
}

function base64UrlBytes(text: string): Uint8Array<ArrayBuffer> {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(base64 + "=".repeat((4 - base64.length % 4) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function base64UrlJson(text: string): Record<string, unknown> {
  const value: unknown = JSON.parse(new TextDecoder().decode(base64UrlBytes(text)));
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error("not a JSON object");
  }
  return value as Record<string, unknown>;
}

function sameUrl(a: string, b: string): boolean {
  const norm = (url: string) => url.trim().replace(/\/+$/, "").toLowerCase();
  return norm(a) === norm(b);
}

async function getJson(url: string): Promise<Record<string, unknown>> {
  const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (!response.ok) {
    await response.body?.cancel();
    throw new BubError("temporary", `GET ${url} answered HTTP ${response.status}`);
  }
  return await response.json() as Record<string, unknown>;
}

/**
 * Checks Bot Framework's signed activities and gets the bot's tokens (see the module doc).
 */
export class BotFrameworkAuth {
  readonly #options: BotFrameworkAuthOptions;
  readonly #openIdBase: string;
  readonly #loginBase: string;
  #keys: Map<string, BotFrameworkJwk> = new Map();
  #keysAt = 0;
  #keysLoading: Promise<void> | null = null;
  readonly #tokens = new Map<string, Promise<{ token: string; expiresAt: number }>>();

  /** @param options the app's credentials and the login base */
  constructor(options: BotFrameworkAuthOptions) {
    this.#options = options;
    const base = options.apiBase?.trim().replace(/\/+$/, "") || null;
    this.#openIdBase = base ?? BOT_FRAMEWORK_OPENID_BASE;
    this.#loginBase = base ?? MICROSOFT_LOGIN_BASE;
  }

  /**
   * True when `request` carries a valid Bot Framework token for the activity `body`; false (with
   * the reason logged, never the token) otherwise. The adapter answers 401 to false.
   */
  async verify(request: Request, body: string): Promise<boolean> {
    try {
      await this.#verify(request.headers.get("authorization") ?? "", body);
      return true;
    } catch (error) {
      getLogger(["bub", "channels", "teams"]).warning("teams.webhook refused: {reason}", {
        reason: error instanceof Error ? error.message : String(error),
      });
      return false;
    }
  }

  async #verify(authorization: string, body: string): Promise<void> {
    const match = /^Bearer ([\w-]+)\.([\w-]+)\.([\w-]+)$/.exec(authorization.trim());
    if (!match) throw new Error("no Bearer JWT");
    const [, head, claims, signature] = match as unknown as [string, string, string, string];
    const header = base64UrlJson(head);
    if (header.alg !== "RS256" || typeof header.kid !== "string") {
      throw new Error(`unexpected JWT header alg=${String(header.alg)}`);
    }
    const jwk = await this.#key(header.kid);
    const key = await crypto.subtle.importKey(
      "jwk",
      { kty: jwk.kty, n: jwk.n, e: jwk.e, alg: "RS256", ext: true },
      { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
      false,
      ["verify"],
    );
    const signed = new TextEncoder().encode(`${head}.${claims}`);
    const valid = await crypto.subtle.verify(
      "RSASSA-PKCS1-v1_5",
      key,
      base64UrlBytes(signature),
      signed,
    );
    if (!valid) throw new Error("bad JWT signature");
    const payload = base64UrlJson(claims);
    const activity = JSON.parse(body) as { serviceUrl?: unknown; channelId?: unknown };
    const now = Date.now() / 1000;
    if (payload.iss !== BOT_FRAMEWORK_ISSUER) throw new Error("unexpected issuer");
    if (payload.aud !== this.#options.appId) throw new Error("unexpected audience");
    if (typeof payload.exp !== "number" || payload.exp + SKEW_SECONDS < now) {
      throw new Error("expired token");
    }
    if (typeof payload.nbf === "number" && payload.nbf - SKEW_SECONDS > now) {
      throw new Error("token not valid yet");
    }
    const serviceUrl = typeof activity.serviceUrl === "string" ? activity.serviceUrl : "";
    if (typeof payload.serviceurl !== "string" || !sameUrl(payload.serviceurl, serviceUrl)) {
      throw new Error("serviceurl claim does not match the activity's serviceUrl");
    }
    const channel = typeof activity.channelId === "string" ? activity.channelId : "";
    if (
      channel !== "" && Array.isArray(jwk.endorsements) && !jwk.endorsements.includes(channel)
    ) {
      throw new Error(`signing key not endorsed for channel ${channel}`);
    }
  }

  async #key(kid: string): Promise<BotFrameworkJwk> {
    const stale = Date.now() - this.#keysAt > KEYS_TTL_MS;
    const unknown = !this.#keys.has(kid) && Date.now() - this.#keysAt > REFETCH_MS;
    if (stale || unknown) {
      this.#keysLoading ??= this.#loadKeys().finally(() => (this.#keysLoading = null));
      await this.#keysLoading;
    }
    const key = this.#keys.get(kid);
    if (!key || key.kty !== "RSA") throw new Error("unknown signing key");
    return key;
  }

  async #loadKeys(): Promise<void> {
    const metadata = await getJson(`${this.#openIdBase}/v1/.well-known/openidconfiguration`);
    if (typeof metadata.jwks_uri !== "string") {
      throw new BubError("temporary", "Bot Framework's OpenID metadata has no jwks_uri");
    }
    const jwks = await getJson(metadata.jwks_uri);
    const keys = Array.isArray(jwks.keys) ? jwks.keys as BotFrameworkJwk[] : [];
    this.#keys = new Map(
      keys.filter((key) => typeof key.kid === "string").map((key) => [key.kid!, key]),
    );
    this.#keysAt = Date.now();
  }

  /**
   * A token of the bot for `scope` from the client-credentials grant. Bot Framework's scope is
   * always asked of the app's own tenant (`botframework.com` for a multi-tenant app), whatever
   * the Teams SDK passes (it fills in a `TENANT_ID` variable of the environment); another scope
   * (Microsoft Graph) of the tenant the SDK names, else the app's, else `common`.
   *
   * @throws {BubError} kind `config` when the login endpoint refuses the app's credentials,
   *   `temporary` when it cannot be reached or fails
   */
  async token(scope: string, tenantId?: string): Promise<string> {
    const own = this.#options.tenantId?.trim() || "";
    const tenant = scope === BOT_FRAMEWORK_SCOPE
      ? own || "botframework.com"
      : tenantId || own || "common";
    const cacheKey = `${tenant} ${scope}`;
    const cached = this.#tokens.get(cacheKey);
    const entry = cached ? await cached.catch(() => null) : null;
    if (entry && entry.expiresAt - TOKEN_MARGIN_MS > Date.now()) return entry.token;
    const request = this.#requestToken(scope, tenant);
    this.#tokens.set(cacheKey, request);
    request.catch(() => this.#tokens.delete(cacheKey));
    return (await request).token;
  }

  async #requestToken(
    scope: string,
    tenant: string,
  ): Promise<{ token: string; expiresAt: number }> {
    const url = `${this.#loginBase}/${encodeURIComponent(tenant)}/oauth2/v2.0/token`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: this.#options.appId,
          client_secret: this.#options.appPassword,
          scope,
        }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw new BubError("temporary", `Cannot reach the Teams token endpoint ${url}`, {
        cause: error instanceof Error ? error.message : String(error),
      });
    }
    const data = await response.json().catch(() => ({})) as Record<string, unknown>;
    if (!response.ok || typeof data.access_token !== "string") {
      const code = typeof data.error === "string" ? data.error : `HTTP ${response.status}`;
      throw new BubError(
        response.status === 400 || response.status === 401 ? "config" : "temporary",
        `The Teams token endpoint refused app ${this.#options.appId}: ${code}`,
      );
    }
    const seconds = Number(data.expires_in);
    const lifetime = Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 3600_000;
    return { token: data.access_token, expiresAt: Date.now() + lifetime };
  }
}
