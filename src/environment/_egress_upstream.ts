/**
 * Private: the egress proxy's way to a host that must be reached through another proxy (a
 * Telegram session's Bot API behind `telegram.proxy`): a `CONNECT host:port` tunnel through an
 * `http://` or `https://` proxy, with `Proxy-Authorization: Basic` from the URL's user info.
 *
 * @module
 */
import { createConnection, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { Buffer } from "node:buffer";

/** A route: the allowlist entries reached through `proxy`. */
export interface EgressUpstream {
  /** Allowlist entries (as in `sandbox_network`) this proxy carries. */
  readonly hosts: readonly string[];
  /** The proxy: `http://[user:password@]host:port` or `https://…`. */
  readonly proxy: string;
}

/** `proxy` with its password hidden, for messages. */
export function redactedProxy(proxy: string): string {
  return proxy.replace(/\/\/[^@/]*@/, "//***@");
}

/**
 * Opens a tunnel to `host:port` through `proxy`; resolves with the socket once the proxy answered
 * 2xx (bytes after its answer are pushed back), rejects with why otherwise.
 */
export function tunnelThrough(proxy: string, host: string, port: number): Promise<Socket> {
  let url: URL;
  try {
    url = new URL(proxy);
  } catch {
    return Promise.reject(new Error(`the upstream proxy ${redactedProxy(proxy)} is not a URL`));
  }
  const secure = url.protocol === "https:";
  const proxyPort = Number(url.port || (secure ? 443 : 80));
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const socket: Socket = secure
    ? tlsConnect({ host: hostname, port: proxyPort, servername: hostname })
    : createConnection({ host: hostname, port: proxyPort });
  const authority = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
  const auth = url.username
    ? `Proxy-Authorization: Basic ${
      Buffer.from(
        `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`,
      ).toString("base64")
    }\r\n`
    : "";
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    const fail = (why: string) => {
      socket.destroy();
      reject(new Error(`through ${redactedProxy(proxy)}: ${why}`));
    };
    socket.once(secure ? "secureConnect" : "connect", () => {
      socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${auth}\r\n`);
    });
    const onError = (error: Error) => fail(String(error));
    socket.on("error", onError);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) {
        if (head.length > 16 * 1024) fail("its answer has no end");
        return;
      }
      socket.off("data", onData);
      socket.off("error", onError);
      // A peer that goes away mid-stream is normal for a tunnel: never an uncaught error.
      socket.on("error", () => socket.destroy());
      const status = head.subarray(0, head.indexOf("\r\n")).toString("latin1");
      if (!/^HTTP\/1\.[01] 2\d\d/.test(status)) return fail(`it answered ${status}`);
      const rest = head.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      resolve(socket);
    };
    socket.on("data", onData);
  });
}
