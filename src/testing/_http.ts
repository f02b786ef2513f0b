/**
 * Private: the HTTP plumbing the fakes share — reading a request's body and parameters, JSON
 * answers, and servers on 127.0.0.1 that close with their open connections, down to a whole
 * fake's start-up ({@link startFakeServer}).
 *
 * @module
 */
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

/** How {@link startFakeServer} starts a fake of type `T`. */
export interface FakeServerStart<T> {
  /** Makes the fake around its listening server (may start more, e.g. a WebSocket side). */
  create(http: LoopbackServer): T | Promise<T>;
  /** Answers one request (usually the fake's private `#handle`). */
  handle(fake: T, req: IncomingMessage, res: ServerResponse): Promise<void>;
  /**
   * The JSON body of the 500 answered when `handle` rejects, in the platform's error shape;
   * without it (or once the headers are out) the response is destroyed instead.
   */
  errorBody?: (error: unknown) => unknown;
  /** The port to listen on (default 0: a free one). */
  port?: number;
}

/**
 * Starts a fake's HTTP server on 127.0.0.1 (see {@link startLoopbackServer}), then makes the fake
 * with `create`; every request goes to `handle` with that fake.
 */
export async function startFakeServer<T>(start: FakeServerStart<T>): Promise<T> {
  const made: { fake?: T } = {};
  const http = await startLoopbackServer(
    (req, res) => start.handle(made.fake!, req, res),
    (res, error) => {
      if (start.errorBody && !res.headersSent) reply(res, 500, start.errorBody(error));
      else if (!res.destroyed) res.destroy();
    },
    start.port ?? 0,
  );
  made.fake = await start.create(http);
  return made.fake;
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
