/**
 * The web console's access token: a random token minted at start and accepted only as
 * `Authorization: Bearer <token>`. No cookie carries it (browsers scope cookies by host, not by
 * port, so a cookie would reach every other server on 127.0.0.1) and no URL the server reads
 * does: the page takes it from the fragment of the printed URL (`#token=…`), keeps it in memory
 * and `sessionStorage` (both per origin, port included) and sends it as a header.
 *
 * @module
 */

/** A fresh random access token (32 bytes from the platform's CSPRNG, hex). */
export function newAccessToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Compares two strings in time independent of where they differ. */
export function sameToken(a: string, b: string): boolean {
  const left = new TextEncoder().encode(a);
  const right = new TextEncoder().encode(b);
  let diff = left.length ^ right.length;
  for (let i = 0; i < right.length; i++) diff |= (left[i] ?? 0) ^ right[i]!;
  return diff === 0;
}

/**
 * True when `headers` carry `Authorization: Bearer <token>`. Cookies and query parameters are
 * never read; a malformed header is simply not the token.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hasBearerToken } from "./auth.ts";
 * assert.ok(hasBearerToken("abc", new Headers({ authorization: "Bearer abc" })));
 * assert.ok(!hasBearerToken("abc", new Headers({ cookie: "bub_token=abc" })));
 * ```
 */
export function hasBearerToken(token: string, headers: Headers): boolean {
  const authorization = headers.get("authorization") ?? "";
  const bearer = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization)?.[1];
  return bearer !== undefined && sameToken(bearer, token);
}
