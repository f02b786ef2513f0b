/**
 * One HTTP/1.1 exchange over a raw TCP socket (`node:net`, on every runtime), for requests
 * `fetch` cannot make: any `Host` header, a chunked body that keeps coming, headers sent as they
 * are. The response is read until the server closes the connection (`Connection: close`).
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { connect } from "node:net";

/** A parsed response. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Options of {@link rawRequest}. */
export interface RawRequestOptions {
  /** Header lines as written (a `Connection: close` is added). */
  headers: Record<string, string>;
  /** The body, written after the headers. */
  body?: string;
  /**
   * A body written in chunks of this many bytes with chunked encoding, `chunks` times, and never
   * terminated: only a server that answers while the body still streams answers at all.
   */
  endless?: { chunkBytes: number; chunks: number };
  /** Gives up (rejects) after this many ms without a response. Default 20000. */
  timeoutMs?: number;
}

/** Sends `method path` to `127.0.0.1:port` and returns the response. */
export function rawRequest(
  port: number,
  method: string,
  path: string,
  options: RawRequestOptions,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const received: Buffer[] = [];
    let settled = false;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      socket.destroy();
      reject(
        new Error(`no response to ${method} ${path} within ${options.timeoutMs ?? 20_000} ms`),
      );
    }, options.timeoutMs ?? 20_000);
    socket.on("close", () => clearTimeout(timer));
    const finish = (): void => {
      if (settled) return;
      const text = Buffer.concat(received).toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) {
        settled = true;
        return reject(new Error(`no HTTP response: ${JSON.stringify(text.slice(0, 200))}`));
      }
      settled = true;
      const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      let body = text.slice(end + 4);
      if (/chunked/i.test(headers["transfer-encoding"] ?? "")) body = unchunk(body);
      resolve({ status: Number(statusLine!.split(" ")[1]), headers, body });
      socket.destroy();
    };
    socket.on("data", (chunk: Buffer) => {
      received.push(chunk);
      // The response of a refused endless body: stop at the end of its JSON.
      const text = Buffer.concat(received).toString("latin1");
      if (options.endless && /\r\n\r\n[\s\S]*\}\}/.test(text)) finish();
    });
    socket.on("end", finish);
    socket.on("close", finish);
    socket.on("error", (error) => {
      if (received.length) finish();
      else if (!settled) {
        settled = true;
        reject(error);
      }
    });
    socket.on("connect", () => {
      const head = [`${method} ${path} HTTP/1.1`, "Connection: close"];
      for (const [name, value] of Object.entries(options.headers)) head.push(`${name}: ${value}`);
      if (options.endless) head.push("Transfer-Encoding: chunked");
      else if (options.body !== undefined) {
        head.push(`Content-Length: ${Buffer.byteLength(options.body)}`);
      }
      socket.write(head.join("\r\n") + "\r\n\r\n");
      if (options.body !== undefined) socket.write(options.body);
      if (options.endless) {
        const chunk = Buffer.alloc(options.endless.chunkBytes, 0x61);
        for (let i = 0; i < options.endless.chunks; i++) {
          socket.write(`${chunk.length.toString(16)}\r\n`);
          socket.write(chunk);
          socket.write("\r\n");
        }
      }
    });
  });
}

function unchunk(text: string): string {
  let out = "";
  let rest = text;
  while (rest.length) {
    const line = rest.indexOf("\r\n");
    if (line < 0) break;
    const size = parseInt(rest.slice(0, line), 16);
    if (!size) break;
    out += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 2 + size + 2);
  }
  return out;
}
