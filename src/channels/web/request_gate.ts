/**
 * The checks every request to the web console passes before any route sees it: its `Host` is one
 * of the addresses the console answers to (a DNS-rebinding page names its own host), a
 * state-changing request (anything but GET and HEAD) comes from the console's own origin
 * (`Origin`, else `Sec-Fetch-Site: same-origin`; a request with neither is a non-browser client,
 * which still needs the Bearer token no cross-site page can send without a CORS preflight the
 * console never grants), says `Content-Type: application/json`, and announces no body over the
 * limit. A refusal is a status, a kind and a message for the JSON error body.
 *
 * @module
 */
import { hostname, networkInterfaces } from "node:os";

/** Why a request was refused: the HTTP status and the `{error: {kind, message}}` of the body. */
export interface Refusal {
  /** 403 (host or origin), 413 (body too large) or 415 (not JSON). */
  status: 403 | 413 | 415;
  /** `forbidden`, `invalid_input` (413) or `unsupported_media_type`. */
  kind: string;
  /** What was wrong. */
  message: string;
}

/** True for a loopback host name or address. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127\./.test(host);
}

function isWildcard(host: string): boolean {
  return host === "0.0.0.0" || host === "::" || host === "[::]";
}

/** `host` as it appears in a URL (IPv6 in brackets), lower case. */
export function urlHost(host: string): string {
  const lower = host.toLowerCase();
  return lower.includes(":") && !lower.startsWith("[") ? `[${lower}]` : lower;
}

/**
 * The `Host` values a console bound to `host:port` answers to: the bound address; with a loopback
 * bind also `127.0.0.1`, `localhost` and `[::1]`; with a wildcard bind (`0.0.0.0`, `::`) those,
 * the machine's interface addresses and its host name; plus `extra` names. Each carries the port
 * (and port 80 also stands without it, as browsers send it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { consoleHosts } from "./request_gate.ts";
 * const hosts = consoleHosts("127.0.0.1", 8765);
 * assert.ok(hosts.has("localhost:8765") && !hosts.has("evil.example:8765"));
 * ```
 */
export function consoleHosts(
  host: string,
  port: number,
  extra: readonly string[] = [],
): Set<string> {
  const names = new Set<string>([urlHost(host), ...extra.map(urlHost)]);
  if (isLoopback(host) || isWildcard(host)) {
    for (const name of ["127.0.0.1", "localhost", "[::1]"]) names.add(name);
  }
  if (isWildcard(host)) {
    names.add(hostname().toLowerCase());
    for (const list of Object.values(networkInterfaces())) {
      for (const address of list ?? []) names.add(urlHost(address.address.split("%")[0]!));
    }
  }
  const hosts = new Set<string>();
  for (const name of names) {
    hosts.add(`${name}:${port}`);
    if (port === 80) hosts.add(name);
  }
  return hosts;
}

const forbidden = (message: string): Refusal => ({ status: 403, kind: "forbidden", message });

/** True for a method that may change state (anything but GET and HEAD). */
export function changesState(method: string): boolean {
  return method !== "GET" && method !== "HEAD";
}

/** The `Host` check alone: a refusal, or null when the request names one of `hosts`. */
export function checkHost(request: Request, hosts: ReadonlySet<string>): Refusal | null {
  const host = request.headers.get("host")?.toLowerCase() ?? null;
  if (host === null) return forbidden("Request refused: it has no Host header");
  if (!hosts.has(host)) {
    return forbidden(
      `Request refused: Host ${JSON.stringify(host)} is not an address this console answers to`,
    );
  }
  return null;
}

/**
 * The origin check of a state-changing request (call for anything {@link changesState} says yes
 * to): an `Origin` must be the console's own (`http://` and one of `hosts`), a `Sec-Fetch-Site`
 * must be `same-origin`; a refusal, or null.
 */
export function checkOrigin(request: Request, hosts: ReadonlySet<string>): Refusal | null {
  const origin = request.headers.get("origin");
  const site = request.headers.get("sec-fetch-site");
  if (origin !== null && !hosts.has(originHost(origin))) {
    return forbidden(
      `Cross-origin request refused: Origin ${JSON.stringify(origin)} is not this console's`,
    );
  }
  if (site !== null && site !== "same-origin") {
    return forbidden(`Cross-origin request refused: Sec-Fetch-Site is ${JSON.stringify(site)}`);
  }
  return null;
}

/**
 * The media type and announced size checks of a state-changing request: `Content-Type` must be
 * `application/json` (415) and a `Content-Length` must not pass the limit (413).
 */
export function checkJsonRequest(request: Request, maxBodyBytes: number): Refusal | null {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/json[ \t]*(;|$)/i.test(type)) {
    return {
      status: 415,
      kind: "unsupported_media_type",
      message: `Expected Content-Type: application/json, got ${JSON.stringify(type)}`,
    };
  }
  const length = request.headers.get("content-length");
  if (length !== null && /^\d+$/.test(length.trim()) && Number(length) > maxBodyBytes) {
    return tooLarge(maxBodyBytes);
  }
  return null;
}

/** The refusal of a body over `limit` bytes. */
export function tooLarge(limit: number): Refusal {
  return {
    status: 413,
    kind: "invalid_input",
    message: `Request body too large: the console accepts at most ${limit} bytes ` +
      "(console_max_body_bytes, BUB_CONSOLE_MAX_BODY_BYTES)",
  };
}

/** The `host:port` of an `http:` origin, or "" for anything else (`null`, other schemes). */
function originHost(origin: string): string {
  const match = /^http:\/\/([^/?#]+)$/i.exec(origin.trim());
  return match ? match[1]!.toLowerCase() : "";
}
