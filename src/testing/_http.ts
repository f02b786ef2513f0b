import { Buffer } from "node:buffer";
import type { IncomingMessage, ServerResponse } from "node:http";

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
