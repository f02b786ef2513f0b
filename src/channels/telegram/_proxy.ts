/**
 * Routing the Telegram channel's Bot API calls through an HTTP(S) proxy.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import type { Agent as HttpAgent } from "node:http";
import { getLogger } from "../../_internal/log.ts";
import { lazyImport } from "../../_internal/lazy.ts";
import { runtimeKey } from "../../_internal/runtime.ts";

const logger = getLogger(["bub", "channels", "telegram"]);

// Imported on first use: an ES import of `node:http` costs Node ~15 ms (it loads undici).
const nodeHttp = lazyImport(() => import("node:http"));
const nodeHttps = lazyImport(() => import("node:https"));

/** Client options for grammy routing calls through a proxy. */
export interface ProxyClientOptions {
  /** node-fetch options: an `agent` picked per request URL (Node and Deno). */
  baseFetchConfig?: { agent: (url: URL) => HttpAgent };
  /** A `fetch` passing the proxy natively (Bun, whose agents ignore `proxyEnv`). */
  fetch?: (url: string, init?: Record<string, unknown>) => Promise<Response>;
}

/**
 * Client options sending every API call through `proxy` (an `http://` or `https://` URL): on Bun,
 * its `fetch` with the `proxy` option; elsewhere node-fetch agents with `proxyEnv` (Node ≥ 24.5,
 * Deno). Null when `proxy` is empty; SOCKS proxies are not supported (a warning is logged and
 * calls go direct).
 */
export async function proxyClientOptions(
  proxy: string | null | undefined,
): Promise<ProxyClientOptions | null> {
  if (!proxy) return null;
  if (!/^https?:\/\//i.test(proxy)) {
    logger.warning(
      "telegram.proxy unsupported proxy={proxy}: only http:// and https:// proxies work",
      {
        proxy: proxy.replace(/\/\/[^@/]*@/, "//***@"),
      },
    );
    return null;
  }
  if (runtimeKey() === "bun") {
    const native = globalThis.fetch;
    return {
      fetch: (url, init = {}) => {
        const { agent: _agent, compress: _compress, ...rest } = init;
        return native(url, { ...rest, proxy } as RequestInit);
      },
    };
  }
  const proxyEnv = { HTTP_PROXY: proxy, HTTPS_PROXY: proxy };
  const http = new (await nodeHttp()).Agent({ keepAlive: true, proxyEnv });
  const https = new (await nodeHttps()).Agent({ keepAlive: true, proxyEnv });
  return { baseFetchConfig: { agent: (url: URL) => (url.protocol === "http:" ? http : https) } };
}

/**
 * Downloads `url` through the proxy options (or directly when null); rejects on a non-2xx status.
 */
export async function downloadBytes(
  url: string,
  proxy: ProxyClientOptions | null,
): Promise<Uint8Array> {
  if (proxy?.baseFetchConfig) {
    const agent = proxy.baseFetchConfig.agent(new URL(url));
    const get = url.startsWith("https:") ? (await nodeHttps()).get : (await nodeHttp()).get;
    return await new Promise<Uint8Array>((resolve, reject) => {
      get(url, { agent }, (response) => {
        const chunks: Uint8Array[] = [];
        response.on("data", (chunk: Uint8Array) => chunks.push(chunk));
        response.on("error", reject);
        response.on("end", () => {
          const status = response.statusCode ?? 0;
          if (status < 200 || status >= 300) reject(new Error(`HTTP ${status}`));
          else resolve(new Uint8Array(Buffer.concat(chunks)));
        });
      }).on("error", reject);
    });
  }
  const response = await (proxy?.fetch ?? fetch)(url);
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`HTTP ${response.status}`);
  }
  return new Uint8Array(await response.arrayBuffer());
}
