import { Buffer } from "node:buffer";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Server as NetServer, Socket } from "node:net";

/** The whole request body. */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    req.on("data", (chunk: Uint8Array) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** Query, JSON and form parameters of a request. */
export function parseParams(req: IncomingMessage, body: Buffer, url: URL): Record<string, unknown> {
  const params: Record<string, unknown> = Object.fromEntries(url.searchParams);
  const type = req.headers["content-type"] ?? "";
  const text = new TextDecoder().decode(body);
  if (type.includes("application/json") && text) Object.assign(params, JSON.parse(text));
  if (type.includes("application/x-www-form-urlencoded")) {
    Object.assign(params, Object.fromEntries(new URLSearchParams(text)));
  }
  return params;
}

/** Sends a JSON response. */
export function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** An HTTP server listening on 127.0.0.1 that can be closed with its open connections. */
export interface LoopbackServer {
  /** The port listened on. */
  readonly port: number;
  /** Stops listening and destroys open connections; resolves when the server is closed. */
  close(): Promise<void>;
}

/**
 * Starts an HTTP server on 127.0.0.1 (`port` 0 picks a free one). Each request goes to `handle`;
 * when it rejects, `onError` answers (or destroys) the response. Broken client connections are
 * dropped quietly.
 */
export async function startLoopbackServer(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  onError: (res: ServerResponse, error: unknown) => void,
  port: number = 0,
): Promise<LoopbackServer> {
  const server = createServer();
  // Idle keep-alive connections stay open (close() destroys them): a server closing one after
  // the default 5 s races a client reusing it, failing a request that was never received.
  server.keepAliveTimeout = 120_000;
  server.on("clientError", (_error: unknown, socket: Socket) => socket.destroy());
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => onError(res, error));
  });
  return await listenLoopback(server, port);
}

/**
 * Starts `server` (HTTP or plain TCP) listening on 127.0.0.1 (`port` 0 picks a free one). Its
 * connections are tracked so that `close` can destroy them; their errors are dropped quietly.
 */
export async function listenLoopback(server: NetServer, port: number = 0): Promise<LoopbackServer> {
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
  });
  const listening = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      const address = server.address();
      resolve(typeof address === "object" && address ? address.port : 0);
    });
  });
  let closed: Promise<void> | null = null;
  return {
    port: listening,
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        sockets.clear();
      });
      return closed;
    },
  };
}
