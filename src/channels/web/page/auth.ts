/**
 * The page's access token and its authorized requests. The printed URL carries the token in its
 * fragment (`#token=…`, never sent to a server; `?token=` works too); on load the page moves it
 * into memory and `sessionStorage` (both scoped to this origin, port included, so no other local
 * server can read it; the stored copy survives a reload of this tab) and removes it from the
 * address bar. Every API request sends it as `Authorization: Bearer`, which no other origin can
 * make the browser send.
 *
 * @module
 */

const STORAGE_KEY = "bub_token";

/** The token found in `url` (`#token=` or `?token=`) and `url` without it. */
export function takeToken(url: string): { token: string | null; clean: string } {
  const parsed = new URL(url);
  const hash = new URLSearchParams(parsed.hash.slice(1));
  const token = hash.get("token") || parsed.searchParams.get("token") || null;
  hash.delete("token");
  parsed.searchParams.delete("token");
  const rest = hash.toString();
  return { token, clean: `${parsed.pathname}${parsed.search}${rest ? `#${rest}` : ""}` };
}

let current: string | null = null;

/**
 * Reads the token from the address bar (then cleans it) or from this tab's `sessionStorage`;
 * returns whether the page has one.
 */
export function loadToken(): boolean {
  const { token, clean } = takeToken(location.href);
  if (token) {
    sessionStorage.setItem(STORAGE_KEY, token);
    history.replaceState(history.state, "", clean);
  }
  current = token ?? sessionStorage.getItem(STORAGE_KEY);
  return current !== null;
}

/** Forgets the token (the console refused it: it was restarted with a new one). */
export function dropToken(): void {
  current = null;
  sessionStorage.removeItem(STORAGE_KEY);
}

/** The error of a refused token. */
export class Unauthorized extends Error {
  /** An error saying how to get a working token. */
  constructor() {
    super("The console refused the access token: open the URL that `bub web` printed");
  }
}

/** `fetch` with the token as `Authorization: Bearer`; a 401 drops the token and throws. */
export async function authorizedFetch(path: string, init: RequestInit = {}): Promise<Response> {
  if (current === null) throw new Unauthorized();
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${current}`);
  const response = await fetch(path, { ...init, headers, credentials: "omit" });
  if (response.status === 401) {
    await response.body?.cancel();
    dropToken();
    throw new Unauthorized();
  }
  return response;
}

/** Fetches JSON from the console's API; throws on an error body. */
export async function api<T>(path: string, init?: RequestInit): Promise<T> {
  const response = await authorizedFetch(path, init);
  const body = await response.json().catch(() => null) as
    | { error?: { message?: string } }
    | null;
  if (!response.ok) throw new Error(body?.error?.message ?? `HTTP ${response.status}`);
  return body as T;
}

/** POSTs `body` as JSON (the console accepts state changes only as `application/json`). */
export function postJson<T>(path: string, body: unknown): Promise<T> {
  return api<T>(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}
