/**
 * The web console's access token: a random token minted at start, accepted as `?token=` (which
 * sets a cookie), as the `bub_token` cookie or as `Authorization: Bearer <token>`.
 *
 * @module
 */

/** The cookie holding the token after the first visit. */
export const TOKEN_COOKIE = "bub_token";

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

/** The value of cookie `name` in a `Cookie` header, or null. */
export function cookieValue(header: string | null | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index < 0) continue;
    if (part.slice(0, index).trim() === name) {
      return decodeURIComponent(part.slice(index + 1).trim());
    }
  }
  return null;
}

/** Where a request carried the token: `query`, `cookie`, `bearer`, or null when it did not. */
export function presentedToken(
  token: string,
  request: { url: string; headers: Headers },
): "query" | "cookie" | "bearer" | null {
  const authorization = request.headers.get("authorization") ?? "";
  const bearer = /^Bearer\s+(.+)$/i.exec(authorization)?.[1]?.trim();
  if (bearer && sameToken(bearer, token)) return "bearer";
  const cookie = cookieValue(request.headers.get("cookie"), TOKEN_COOKIE);
  if (cookie && sameToken(cookie, token)) return "cookie";
  const query = new URL(request.url).searchParams.get("token");
  if (query && sameToken(query, token)) return "query";
  return null;
}
