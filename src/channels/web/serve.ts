/**
 * Serves a fetch handler on 127.0.0.1 (or another host) with the current runtime's server:
 * `Deno.serve` on Deno, `Bun.serve` on Bun, `@hono/node-server` on Node (loaded on demand).
 *
 * @module
 */
import { runtimeKey } from "../../_internal/runtime.ts";

/** A listening server. */
export interface ListeningServer {
  /** The host it is bound to. */
  readonly host: string;
  /** The port it listens on. */
  readonly port: number;
  /** Stops listening and ends open connections (event streams included). */
  close(): Promise<void>;
}

/** A request handler. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

interface DenoLike {
  serve(
    options: { hostname: string; port: number; onListen?: () => void },
    handler: FetchHandler,
  ): { addr: { port: number }; shutdown(): Promise<void> };
}

interface BunLike {
  serve(options: {
    hostname: string;
    port: number;
    idleTimeout?: number;
    fetch: FetchHandler;
  }): { port: number; stop(force?: boolean): unknown };
}

/** Starts serving `fetch` on `host:port` (`0` picks a free port). */
export async function serveFetch(
  fetch: FetchHandler,
  host: string,
  port: number,
): Promise<ListeningServer> {
  const g = globalThis as { Deno?: DenoLike; Bun?: BunLike };
  const runtime = runtimeKey();
  if (runtime === "deno" && g.Deno) {
    const server = g.Deno.serve({ hostname: host, port, onListen: () => {} }, fetch);
    return { host, port: server.addr.port, close: () => server.shutdown() };
  }
  if (runtime === "bun" && g.Bun) {
    const server = g.Bun.serve({ hostname: host, port, idleTimeout: 0, fetch });
    return {
      host,
      port: server.port,
      close: async () => void await server.stop(true),
    };
  }
  const { serve } = await import("@hono/node-server");
  return await new Promise((resolve, reject) => {
    const server = serve({ fetch, hostname: host, port }, (info) => {
      resolve({
        host,
        port: info.port,
        close: () =>
          new Promise<void>((done) => {
            const http = server as unknown as {
              close(cb: () => void): void;
              closeAllConnections?(): void;
            };
            http.close(() => done());
            http.closeAllConnections?.();
          }),
      });
    });
    server.once("error", reject);
  });
}
