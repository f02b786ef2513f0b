/**
 * The `web.fetch` tool (spec/builtin.md §6.7.14; seed-era structured result §14.6): an HTTP GET
 * that prefers markdown, with a total timeout and a body size cap.
 *
 * @module
 */
import { s as z } from "../../_internal/schema.ts";
import { readBounded } from "../../_internal/bounded_read.ts";
import { LinkedSignal } from "../../_internal/linked_signal.ts";
import { withCommas } from "../../_internal/text.ts";
import { defineTool, type Tool } from "../tool.ts";

/** Default total timeout of `web.fetch`, in seconds. */
export const DEFAULT_FETCH_TIMEOUT_SECONDS = 10;
/** Default body size cap of `web.fetch`: 10 MiB. */
export const DEFAULT_FETCH_MAX_BYTES: number = 10 * 1024 * 1024;

/** Options of {@link fetchWeb} and {@link webFetchTool}. */
export interface WebFetchOptions {
  /** The fetch implementation. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Larger bodies fail. @default {@link DEFAULT_FETCH_MAX_BYTES} */
  maxBytes?: number;
  /** Makes the total-timeout signal for a number of milliseconds. @default AbortSignal.timeout */
  timeoutSignal?: (ms: number) => AbortSignal;
}

/** Arguments of {@link fetchWeb}. */
export interface WebFetchArgs {
  /** An `http:` or `https:` URL. */
  url: string;
  /** Extra request headers; they override the default `accept: text/markdown`. */
  headers?: Record<string, string | number | boolean> | null;
  /** Total timeout in seconds; null or 0 means {@link DEFAULT_FETCH_TIMEOUT_SECONDS}. */
  timeout?: number | null;
  /** Cancels the request. */
  signal?: AbortSignal;
}

/** The seed-era structured result of `web.fetch`; the model sees `content`. */
export interface WebFetchResult {
  /** The final URL (after redirects). */
  url: string;
  /** The HTTP status. */
  status: number;
  /** The `content-type` header, or null. */
  content_type: string | null;
  /** The decoded body. */
  content: string;
}

function _decoder(contentType: string | null): TextDecoder {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "")?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8");
  } catch {
    return new TextDecoder("utf-8");
  }
}

function _tooLarge(url: string, maxBytes: number, size: string): Error {
  return new RangeError(
    `Cannot fetch ${url}: the response body (${size}) exceeds the ${
      withCommas(maxBytes)
    }-byte limit`,
  );
}

async function _readCapped(response: Response, url: string, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw _tooLarge(url, maxBytes, `${withCommas(declared)} bytes`);
  }
  return await readBounded(
    response.body,
    maxBytes,
    () => _tooLarge(url, maxBytes, `more than ${withCommas(maxBytes)} bytes`),
  );
}

/**
 * GETs `args.url` with headers `{accept: "text/markdown", ...headers}` (names compared
 * case-insensitively) within the total timeout, and returns the decoded body.
 *
 * @throws {TypeError} for a URL that is not http(s)
 * @throws {RangeError} for a negative timeout or a body over the size cap
 * @throws {Error} `Cannot fetch <url>: HTTP <status> <text>` for a non-2xx status, or a timeout
 */
export async function fetchWeb(
  args: WebFetchArgs,
  options: WebFetchOptions = {},
): Promise<WebFetchResult> {
  let url: URL;
  try {
    url = new URL(args.url);
  } catch {
    throw new TypeError(`Cannot fetch: url must be an absolute http(s) URL, got "${args.url}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`Cannot fetch: url must be an http(s) URL, got "${args.url}"`);
  }
  const seconds = args.timeout || DEFAULT_FETCH_TIMEOUT_SECONDS;
  if (!Number.isFinite(seconds) || seconds < 0) {
    throw new RangeError(`Cannot fetch ${args.url}: timeout must be >= 0 seconds, got ${seconds}`);
  }
  const maxBytes = options.maxBytes ?? DEFAULT_FETCH_MAX_BYTES;
  const headers = new Headers({ accept: "text/markdown" });
  for (const [key, value] of Object.entries(args.headers ?? {})) headers.set(key, String(value));
  const ms = seconds * 1000;
  const timeout = options.timeoutSignal ? options.timeoutSignal(ms) : AbortSignal.timeout(ms);
  // Linked, not `AbortSignal.any()`, which would keep each fetch's signal from the turn's.
  const linked = args.signal ? new LinkedSignal([args.signal, timeout]) : null;
  const signal = linked?.signal ?? timeout;
  const doFetch = options.fetch ?? globalThis.fetch;
  try {
    const response = await doFetch(url, { method: "GET", headers, signal, redirect: "follow" });
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      throw new Error(
        `Cannot fetch ${args.url}: HTTP ${response.status} ${response.statusText}`.trimEnd(),
      );
    }
    const contentType = response.headers.get("content-type");
    const body = await _readCapped(response, args.url, maxBytes);
    return {
      url: response.url || url.href,
      status: response.status,
      content_type: contentType,
      content: _decoder(contentType).decode(body),
    };
  } catch (error) {
    if (timeout.aborted && !args.signal?.aborted) {
      throw new Error(`Cannot fetch ${args.url}: timed out after ${seconds} seconds`, {
        cause: error,
      });
    }
    throw error;
  } finally {
    linked?.[Symbol.dispose]();
  }
}

/** Renders a {@link WebFetchResult} as the tool text: its `content`. */
export function renderWebFetchResult(result: WebFetchResult): string {
  return result.content;
}

/** The `web.fetch` tool. */
export function webFetchTool(options: WebFetchOptions = {}): Tool {
  return defineTool({
    name: "web.fetch",
    description: "Fetch (GET) a web page and return its body, asking for markdown when the " +
      "server can provide it.",
    parameters: z.object({
      url: z.string().describe("The http(s) URL to fetch."),
      headers: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).nullable()
        .optional().describe("Extra request headers."),
      timeout: z.int().nullable().optional().describe(
        `Total timeout in seconds (default ${DEFAULT_FETCH_TIMEOUT_SECONDS}).`,
      ),
    }),
    context: true,
    handler: async (args, ctx) =>
      renderWebFetchResult(await fetchWeb({ ...args, signal: ctx.signal }, options)),
  });
}
