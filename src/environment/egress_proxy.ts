/**
 * The egress proxy of a sandbox whose network is an allowlist of hosts: an HTTP proxy on a Unix
 * socket that the sandbox's own network namespace cannot bypass (the namespace has no route out;
 * the socket is its only door). It serves `CONNECT host:port` (HTTPS and any TLS) and plain
 * `GET http://host/…` requests, and opens a connection only to a host the allowlist names,
 * refusing every other with `403` and a line saying why.
 *
 * Allowlist entries: `example.com` (ports 80 and 443), `example.com:8080` (that port),
 * `example.com:*` (any port), `*.example.com` (its subdomains, not itself), IP literals the same
 * way (`127.0.0.1:5432`). Names compare without case and without a trailing dot. A host listed in
 * an upstream route (`upstreams`) is reached through that proxy (a CONNECT tunnel), not directly.
 *
 * @module
 */
import { rmSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { BubError } from "../kernel/errors.ts";
import { type EgressUpstream, tunnelThrough } from "./_egress_upstream.ts";

export { type EgressUpstream, redactedProxy } from "./_egress_upstream.ts";

/** Options of {@link startEgressProxy}. */
export interface EgressProxyOptions {
  /** The hosts a sandboxed command may reach (see the module doc). */
  allow: readonly string[];
  /** Allowed hosts reached through another proxy (e.g. `telegram.proxy`); others go direct. */
  upstreams?: readonly EgressUpstream[];
  /**
   * The Unix socket path to listen on (created; removed on dispose), or `{ port }` for a TCP port
   * on 127.0.0.1 (0 picks a free one): the Seatbelt sandbox (macOS) has no network namespace to
   * relay from, so its profile lets commands reach only this port.
   */
  socketPath: string | { port: number };
  /** Told about every refused request (for the log). */
  onRefused?: (target: string, reason: string) => void;
  /** Largest request head accepted, in bytes (431 over it). Default 16 KiB. */
  maxHeadBytes?: number;
  /** How long a client may take to send its request head, in ms. Default 10 000. */
  headTimeoutMs?: number;
}

/** A running egress proxy; dispose it to stop it and close its connections. */
export interface EgressProxy extends AsyncDisposable {
  /** The socket it listens on ("" when it listens on a TCP port). */
  readonly socketPath: string;
  /** The TCP port on 127.0.0.1 it listens on, or null (a Unix socket). */
  readonly port: number | null;
}

/** One parsed allowlist entry. */
interface Rule {
  host: string;
  /** Subdomains of `host` (`*.host`) instead of `host` itself. */
  subdomains: boolean;
  /** Allowed ports; null for any. */
  ports: ReadonlySet<number> | null;
}

const WEB_PORTS: ReadonlySet<number> = new Set([80, 443]);

const normalHost = (host: string): string =>
  host.trim().toLowerCase().replace(/\.$/, "").replace(/^\[(.*)\]$/, "$1");

/**
 * Parses allowlist entries.
 *
 * @throws BubError (config) for an empty entry, a bad port or a wildcard other than `*.`.
 */
export function parseAllowlist(entries: readonly string[]): readonly Rule[] {
  return entries.map((entry) => {
    const text = String(entry).trim();
    // `[::1]:443`, `host:443`, `host:*`; a bare IPv6 literal has more than one colon.
    const match = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}|\*))?$/.exec(text) ??
      (text.includes("::") || text.split(":").length > 2 ? [text, text, undefined] : null);
    const host = match ? normalHost(match[1]!) : "";
    const subdomains = host.startsWith("*.");
    const name = subdomains ? host.slice(2) : host;
    const port = match?.[2];
    if (!name || name.includes("*") || name.includes("/") || /\s/.test(name)) {
      throw new BubError(
        "config",
        `sandbox_network: ${JSON.stringify(entry)} is not a host (expected e.g. ` +
          `"example.com", "*.example.com", "example.com:8080" or "example.com:*")`,
      );
    }
    if (port !== undefined && port !== "*" && (Number(port) < 1 || Number(port) > 65535)) {
      throw new BubError("config", `sandbox_network: ${JSON.stringify(entry)} has a bad port`);
    }
    const ports = port === "*" ? null : port === undefined ? WEB_PORTS : new Set([Number(port)]);
    return { host: name, subdomains, ports };
  });
}

/** True when `rules` let a command reach `host:port`. */
export function allowedTarget(rules: readonly Rule[], host: string, port: number): boolean {
  const name = normalHost(host);
  return rules.some((rule) =>
    (rule.subdomains ? name.endsWith(`.${rule.host}`) : name === rule.host) &&
    (rule.ports === null || rule.ports.has(port))
  );
}

/** Where a request goes: from a CONNECT authority or an absolute URL. */
interface Target {
  host: string;
  port: number;
  /** The head to send upstream (plain HTTP), or null for a tunnel (CONNECT). */
  head: Uint8Array | null;
}

const HEAD_END = "\r\n\r\n";
const HOP_HEADERS = /^(proxy-connection|proxy-authorization|proxy-authenticate):/i;

/** The target of a request head, or an error text for a request the proxy does not serve. */
function targetOf(head: string): Target | string {
  const lines = head.split("\r\n");
  const [method, uri, version] = (lines[0] ?? "").split(" ");
  if (!method || !uri || !/^HTTP\/1\.[01]$/.test(version ?? "")) return "not an HTTP/1 request";
  if (method === "CONNECT") {
    const authority = /^(\[[^\]]+\]|[^:/]+):(\d{1,5})$/.exec(uri);
    if (!authority) return `bad CONNECT target ${JSON.stringify(uri)}`;
    return { host: normalHost(authority[1]!), port: Number(authority[2]), head: null };
  }
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "only absolute http:// URLs and CONNECT are proxied";
  }
  if (url.protocol !== "http:") return `${url.protocol} is not proxied (use CONNECT)`;
  const kept = lines.slice(1).filter((line) => line !== "" && !HOP_HEADERS.test(line));
  const text = [`${method} ${url.pathname}${url.search} ${version}`, ...kept, "", ""].join("\r\n");
  return {
    host: normalHost(url.hostname),
    port: url.port ? Number(url.port) : 80,
    head: new TextEncoder().encode(text),
  };
}

function reply(socket: Socket, status: string, text: string): void {
  const body = `${text}\n`;
  socket.end(
    `HTTP/1.1 ${status}\r\ncontent-type: text/plain; charset=utf-8\r\n` +
      `content-length: ${
        new TextEncoder().encode(body).length
      }\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * Starts the proxy on `options.socketPath`.
 *
 * @throws BubError (config) for a bad allowlist entry
 * @example
 * ```ts ignore
 * import { startEgressProxy } from "./egress_proxy.ts";
 * await using proxy = await startEgressProxy({ allow: ["registry.npmjs.org"], socketPath: "/tmp/p.sock" });
 * ```
 */
export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const rules = parseAllowlist(options.allow);
  const routes = (options.upstreams ?? []).map((upstream) => ({
    rules: parseAllowlist(upstream.hosts),
    proxy: upstream.proxy,
  }));
  const maxHead = options.maxHeadBytes ?? 16 * 1024;
  const headTimeout = options.headTimeoutMs ?? 10_000;
  const open = new Set<Socket>();
  const track = (socket: Socket): Socket => {
    open.add(socket);
    socket.once("close", () => open.delete(socket));
    // A peer that goes away mid-stream is normal for a proxy: never an uncaught error.
    socket.on("error", () => socket.destroy());
    return socket;
  };
  const server: Server = createServer((client) => {
    track(client);
    let buffered = "";
    const timer = setTimeout(() => reply(client, "408 Request Timeout", "no request"), headTimeout);
    const onData = (chunk: Uint8Array | string): void => {
      buffered += typeof chunk === "string" ? chunk : new TextDecoder("latin1").decode(chunk);
      const end = buffered.indexOf(HEAD_END);
      if (end < 0) {
        if (buffered.length > maxHead) {
          clearTimeout(timer);
          client.off("data", onData);
          reply(client, "431 Request Header Fields Too Large", "request head too large");
        }
        return;
      }
      clearTimeout(timer);
      client.off("data", onData);
      client.pause();
      const rest = buffered.slice(end + HEAD_END.length);
      route(client, buffered.slice(0, end + HEAD_END.length), rest);
    };
    client.on("data", onData);
    client.once("close", () => clearTimeout(timer));
  });
  const route = (client: Socket, head: string, rest: string): void => {
    const target = targetOf(head);
    if (typeof target === "string") return reply(client, "400 Bad Request", target);
    const where = `${target.host}:${target.port}`;
    if (!allowedTarget(rules, target.host, target.port)) {
      options.onRefused?.(where, "not in the allowlist");
      return reply(
        client,
        "403 Forbidden",
        `Bub sandbox: ${where} is not in sandbox_network's allowlist`,
      );
    }
    const via = routes.find((route) => allowedTarget(route.rules, target.host, target.port));
    const opened = via
      ? tunnelThrough(via.proxy, target.host, target.port)
      : new Promise<Socket>((resolve, reject) => {
        const socket = track(createConnection({ host: target.host, port: target.port }));
        socket.once("error", reject);
        socket.once("connect", () => {
          socket.off("error", reject);
          resolve(socket);
        });
      });
    opened.then((socket) => {
      const upstream = open.has(socket) ? socket : track(socket);
      if (client.destroyed) return void upstream.destroy();
      if (target.head === null) client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      else upstream.write(target.head);
      if (rest) upstream.write(new Uint8Array([...rest].map((c) => c.charCodeAt(0))));
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
      client.once("close", () => upstream.destroy());
      upstream.once("close", () => client.destroy());
    }, (error) => {
      if (!client.destroyed) reply(client, "502 Bad Gateway", `cannot reach ${where}: ${error}`);
    });
  };
  if (typeof options.socketPath !== "string") {
    await listen(server, { port: options.socketPath.port, host: "127.0.0.1" });
    return {
      socketPath: "",
      port: (server.address() as { port: number }).port,
      async [Symbol.asyncDispose]() {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const socket of open) socket.destroy();
        await closed;
      },
    };
  }
  const socketPath = options.socketPath;
  try {
    await listen(server, socketPath);
  } catch (error) {
    // A socket left by a process that died: nobody answers on it, so it is taken over.
    if ((error as { code?: unknown }).code !== "EADDRINUSE") throw error;
    if (await answers(socketPath)) {
      throw new BubError("config", `Another process serves ${socketPath}`, null, {
        cause: error,
      });
    }
    rmSync(socketPath, { force: true });
    await listen(server, socketPath);
  }
  return {
    socketPath,
    port: null,
    async [Symbol.asyncDispose]() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of open) socket.destroy();
      await closed;
      rmSync(socketPath, { force: true });
    },
  };
}

function listen(server: Server, where: string | { port: number; host: string }): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(where, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** True when something accepts connections on the Unix socket `path`. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createConnection(path);
    probe.once("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.once("error", () => resolve(false));
  });
}
