/**
 * Private: a small WebSocket server on 127.0.0.1 for the fakes (RFC 6455 over `node:net`, text
 * frames, ping/pong, close), enough to speak a chat platform's gateway to a real client on every
 * runtime without a WebSocket library.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { createServer, type Server, type Socket } from "node:net";
import { listenLoopback } from "./_http.ts";

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/** One accepted WebSocket connection. */
export class WsConnection {
  /** The request path and query of the handshake (`/?v=10&encoding=json`). */
  readonly path: string;
  #socket: Socket;
  #buffer: Buffer = Buffer.alloc(0);
  #fragments: Buffer[] = [];
  #closed = false;
  /** Called with each text message received. */
  onText: (text: string) => void = () => {};
  /** Called once when the connection closes. */
  onClose: () => void = () => {};

  constructor(socket: Socket, path: string) {
    this.#socket = socket;
    this.path = path;
    socket.on("close", () => this.#markClosed());
    socket.on("error", () => this.#markClosed());
  }

  /** True until the connection closed. */
  get open(): boolean {
    return !this.#closed;
  }

  /** Sends one text frame. */
  send(text: string): void {
    if (this.#closed) return;
    this.#socket.write(frame(0x1, Buffer.from(text, "utf8")));
  }

  /** Sends a close frame with `code` and ends the connection. */
  close(code = 1000): void {
    if (this.#closed) return;
    const payload = Buffer.alloc(2);
    payload.writeUInt16BE(code, 0);
    this.#socket.end(frame(0x8, payload));
    this.#markClosed();
  }

  /** Drops the connection without a close frame. */
  destroy(): void {
    this.#socket.destroy();
    this.#markClosed();
  }

  /** Feeds bytes read from the socket; parses complete frames. */
  feed(chunk: Buffer): void {
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      const parsed = parseFrame(this.#buffer);
      if (!parsed) return;
      this.#buffer = this.#buffer.subarray(parsed.size);
      this.#onFrame(parsed.fin, parsed.opcode, parsed.payload);
    }
  }

  #onFrame(fin: boolean, opcode: number, payload: Buffer): void {
    if (opcode === 0x8) {
      if (!this.#closed) this.#socket.end(frame(0x8, payload.subarray(0, 2)));
      this.#markClosed();
    } else if (opcode === 0x9) {
      this.#socket.write(frame(0xA, payload));
    } else if (opcode === 0x1 || opcode === 0x2 || opcode === 0x0) {
      this.#fragments.push(payload);
      if (!fin) return;
      const text = Buffer.concat(this.#fragments).toString("utf8");
      this.#fragments = [];
      this.onText(text);
    }
  }

  #markClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onClose();
  }
}

function frame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const head = length < 126 ? Buffer.alloc(2) : length < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  head[0] = 0x80 | opcode;
  if (length < 126) head[1] = length;
  else if (length < 65536) {
    head[1] = 126;
    head.writeUInt16BE(length, 2);
  } else {
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([head, payload]);
}

function parseFrame(
  buffer: Buffer,
): { fin: boolean; opcode: number; payload: Buffer; size: number } | null {
  if (buffer.length < 2) return null;
  const fin = (buffer[0]! & 0x80) !== 0;
  const opcode = buffer[0]! & 0x0f;
  const masked = (buffer[1]! & 0x80) !== 0;
  let length = buffer[1]! & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (buffer.length < 4) return null;
    length = buffer.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (buffer.length < 10) return null;
    length = Number(buffer.readBigUInt64BE(2));
    offset = 10;
  }
  const maskAt = offset;
  if (masked) offset += 4;
  if (buffer.length < offset + length) return null;
  const payload = Buffer.from(buffer.subarray(offset, offset + length));
  if (masked) {
    for (let i = 0; i < payload.length; i++) payload[i]! ^= buffer[maskAt + (i % 4)]!;
  }
  return { fin, opcode, payload, size: offset + length };
}

/** A listening WebSocket server. */
export interface WsServer {
  /** The port listened on. */
  readonly port: number;
  /** Stops listening and drops every connection. */
  close(): Promise<void>;
}

/** Starts a WebSocket server on 127.0.0.1 (a free port); each handshake goes to `accept`. */
export async function startWsServer(accept: (connection: WsConnection) => void): Promise<WsServer> {
  const server: Server = createServer((socket) => {
    let head = Buffer.alloc(0);
    let connection: WsConnection | null = null;
    socket.on("data", (chunk: Buffer) => {
      if (connection) return connection.feed(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      const lines = head.subarray(0, end).toString("latin1").split("\r\n");
      const path = lines[0]?.split(" ")[1] ?? "/";
      const key = lines.map((line) => /^sec-websocket-key:\s*(.+)$/i.exec(line)?.[1])
        .find(Boolean);
      if (!key) {
        socket.end("HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n");
        return;
      }
      const acceptKey = createHash("sha1").update(key.trim() + GUID).digest("base64");
      socket.write(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
          `Sec-WebSocket-Accept: ${acceptKey}\r\n\r\n`,
      );
      connection = new WsConnection(socket, path);
      accept(connection);
      const rest = head.subarray(end + 4);
      if (rest.length > 0) connection.feed(rest);
    });
  });
  return await listenLoopback(server);
}
