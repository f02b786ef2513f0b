/**
 * Private: the signing side of the fake Teams — an RS256 key pair made with WebCrypto, its JWKS
 * (endorsed for `msteams`, as Bot Framework's keys are) and the Bot Connector tokens it signs.
 *
 * @module
 */

/** The issuer of Bot Framework's service tokens. */
export const BOT_FRAMEWORK_ISSUER = "https://api.botframework.com";

function base64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function jsonBase64Url(value: unknown): string {
  return base64Url(new TextEncoder().encode(JSON.stringify(value)));
}

/** An RS256 signing key with its id and public JWK. */
export interface SigningKey {
  /** The key id (`kid`). */
  readonly kid: string;
  /** The private key. */
  readonly privateKey: CryptoKey;
  /** The public key as a JWK, with `kid`, `use` and Bot Framework's `endorsements`. */
  readonly jwk: JsonWebKey & { kid: string; use: string; endorsements: string[] };
}

/** Generates an RS256 key pair named `kid`. */
export async function generateSigningKey(kid: string): Promise<SigningKey> {
  const pair = await crypto.subtle.generateKey(
    {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    true,
    ["sign", "verify"],
  );
  const { kty, n, e } = await crypto.subtle.exportKey("jwk", pair.publicKey);
  return {
    kid,
    privateKey: pair.privateKey,
    jwk: { kty, n, e, kid, use: "sig", endorsements: ["msteams"] },
  };
}

/** The claims of a Bot Connector token to the bot. */
export interface ServiceTokenClaims {
  /** The bot's app id (`aud`). */
  readonly audience: string;
  /** The activity's `serviceUrl` (`serviceurl`). */
  readonly serviceUrl: string;
  /** The issuer (default Bot Framework's). */
  readonly issuer?: string;
  /** Seconds until it expires (default 3600; negative = already expired). */
  readonly expiresIn?: number;
}

/** Signs a Bot Connector service token with `key`. */
export function signServiceToken(key: SigningKey, claims: ServiceTokenClaims): Promise<string> {
  return signJwt(key, {
    iss: claims.issuer ?? BOT_FRAMEWORK_ISSUER,
    aud: claims.audience,
    serviceurl: claims.serviceUrl,
  }, claims.expiresIn ?? 3600);
}

/** Signs an access token of the bot (app `appId`) for `scope`, as the token endpoint issues. */
export function signAccessToken(key: SigningKey, appId: string, scope: string): Promise<string> {
  const audience = scope.replace(/\/\.default$/, "");
  return signJwt(key, { aud: audience, appid: appId, jti: crypto.randomUUID() }, 3600);
}

/** Signs `claims` (plus `nbf`, `iat`, `exp`) as an RS256 JWT. */
async function signJwt(
  key: SigningKey,
  claims: Record<string, unknown>,
  expiresIn: number,
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const head = jsonBase64Url({ alg: "RS256", kid: key.kid, typ: "JWT", x5t: key.kid });
  const payload = jsonBase64Url({ ...claims, nbf: now - 60, iat: now - 60, exp: now + expiresIn });
  const signature = await crypto.subtle.sign(
    "RSASSA-PKCS1-v1_5",
    key.privateKey,
    new TextEncoder().encode(`${head}.${payload}`),
  );
  return `${head}.${payload}.${base64Url(new Uint8Array(signature))}`;
}

/**
 * How one activity is delivered.
 *
 * @example
 * ```ts
 * import type { TeamsDeliveryOptions } from "@bub/core/testing";
 * const forged: TeamsDeliveryOptions = { forged: true };
 * ```
 */
export interface TeamsDeliveryOptions {
  /** Leaves the `Authorization` header out. */
  unsigned?: boolean;
  /** Signs with another key than the one the JWKS lists (a forgery naming the listed key id). */
  forged?: boolean;
  /** Signs for another audience than the bot's app id. */
  audience?: string;
  /** Signs for another `serviceurl` than the activity's. */
  serviceUrl?: string;
  /** Signs with another issuer than Bot Framework's. */
  issuer?: string;
  /** Seconds until the token expires (default 3600; negative: expired). */
  expiresIn?: number;
}
