/**
 * An outsider for the chat gateways' token tests: an HTTP server on another loopback host
 * (127.0.0.2) that answers every request with the same body and records each one (path and
 * `authorization` header). A platform's token must never reach it.
 *
 * @module
 */
import { createServer } from "node:http";

/** A running outsider; `seen` holds `"<path> <authorization>"` per request it received. */
export interface Outsider extends AsyncDisposable {
  /** `http://127.0.0.2:<port>`. */
  readonly origin: string;
  /** The requests it received. */
  readonly seen: string[];
}

/** Starts an outsider answering `body` as `image/png` on 127.0.0.2. */
export async function startOutsider(body: Uint8Array | string): Promise<Outsider> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.url} ${req.headers.authorization ?? ""}`);
    res.writeHead(200, { "content-type": "image/png" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.2", resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.2:${port}`,
    seen,
    [Symbol.asyncDispose]: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
