/**
 * `startWebConsole`: serves the web console of a running framework on 127.0.0.1 (by default)
 * with a fresh access token, answering only to the addresses it listens on (see
 * `request_gate.ts`). Hono and the Node server adapter are imported here, when a console
 * starts, so importing `@bub/core` stays cheap.
 *
 * @module
 */
import process from "node:process";
import { secretEnvValues } from "../../_internal/redact.ts";
import type { SteeringInbox } from "../../kernel/channel.ts";
import type { Envelope } from "../../kernel/envelope.ts";
import { BubError } from "../../kernel/errors.ts";
import type { StreamInboundOptions, TurnEvent } from "../../kernel/turn_stream.ts";
import { sessionTapeName } from "../../tape/naming.ts";
import type { TapeStore } from "../../tape/store.ts";
import { newAccessToken } from "./auth.ts";
import { createConsoleApp, DEFAULT_MAX_BODY_BYTES } from "./app.ts";
import { consoleHosts, isLoopback } from "./request_gate.ts";
import { serveFetch } from "./serve.ts";
import { TurnHub } from "./turn_hub.ts";
import { waitingApprovals } from "./waiting.ts";

/**
 * The part of the framework the console uses (a `BubFramework` inside `running()`).
 *
 * @example
 * ```ts
 * import { BubFramework } from "@bub/core";
 * import type { WebConsoleHost } from "@bub/core/channels";
 * const host: WebConsoleHost = new BubFramework();
 * ```
 */
export interface WebConsoleHost {
  /** Runs one turn as a stream of events. */
  streamInbound(inbound: Envelope, options?: StreamInboundOptions): AsyncIterable<TurnEvent>;
  /** The steering inbox of the running scope (steers messages sent while a turn runs). */
  getSteeringInbox?(): SteeringInbox | null;
  /** The tape store of the running scope. */
  getTapeStore<T extends object = object>(): T | null;
  /** The workspace (names the session tapes of the console's chats in the tape list). */
  readonly workspace?: string;
}

/**
 * Options of {@link startWebConsole}.
 *
 * @example
 * ```ts
 * import { BubFramework } from "@bub/core";
 * import { startWebConsole, type WebConsoleOptions } from "@bub/core/channels";
 * const options: WebConsoleOptions = { host: "127.0.0.1", port: 0, token: "secret-token" };
 * await using web = await startWebConsole(new BubFramework(), options);
 * console.log(web.openUrl);
 * ```
 */
export interface WebConsoleOptions {
  /** The host to bind. Default `127.0.0.1`. */
  host?: string;
  /** The port; `0` (default) picks a free one. */
  port?: number;
  /** The access token. Default: 32 random bytes, hex. */
  token?: string;
  /**
   * Secret values never sent to the page (replaced by `[REDACTED]` in tool output, tape
   * entries and errors). Default: the values of the `BUB_*KEY*`/`*TOKEN*`/`*SECRET*`
   * environment variables.
   */
  secrets?: readonly string[];
  /** Keep-alive interval of the event streams, in ms. Default 15000. */
  keepAliveMs?: number;
  /**
   * The largest request body accepted, in bytes; a larger one gets 413 and is not read past the
   * limit. Default 1 MiB (the `console_max_body_bytes` setting).
   */
  maxBodyBytes?: number;
  /**
   * More host names the console answers to (e.g. a name that resolves to it), besides the
   * address it binds and, on loopback, `127.0.0.1`, `localhost` and `[::1]`. Other `Host`
   * headers get 403 (DNS rebinding).
   */
  allowedHosts?: readonly string[];
}

/**
 * A running web console; dispose it (or call `close`) to stop it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BubFramework } from "@bub/core";
 * import { startWebConsole, type WebConsole } from "@bub/core/channels";
 * const web: WebConsole = await startWebConsole(new BubFramework(), { host: "127.0.0.1", port: 0 });
 * assert.equal(web.openUrl, `${web.url}/#token=${web.token}`); // the page reads it from the fragment
 * await web.close();
 * ```
 */
export interface WebConsole extends AsyncDisposable {
  /** The base URL, e.g. `http://127.0.0.1:8765`. */
  readonly url: string;
  /**
   * The URL to open, with the token in the fragment, which the browser never sends to a server:
   * `http://127.0.0.1:8765/#token=…`. The page moves it into its own memory and cleans the URL.
   */
  readonly openUrl: string;
  /** The access token. */
  readonly token: string;
  /** The port. */
  readonly port: number;
  /** Cancels running turns, ends event streams and stops the server. */
  close(): Promise<void>;
}

export { isLoopback };

/** The chat the console opens when the address names none. */
export const DEFAULT_CHAT = "console";

/**
 * Session ids (`web:<chat>`) of `chats` by their tape names in `workspace`; the console's own
 * chat is always among them, so its tape keeps its name after a restart.
 */
export function chatSessions(chats: readonly string[], workspace?: string): Map<string, string> {
  const sessions = new Map<string, string>();
  if (!workspace) return sessions;
  for (const chat of new Set([DEFAULT_CHAT, ...chats])) {
    sessions.set(sessionTapeName(`web:${chat}`, workspace), `web:${chat}`);
  }
  return sessions;
}

/**
 * Starts the web console of `host` (see the module doc).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BubFramework } from "@bub/core";
 * import { startWebConsole } from "@bub/core/channels";
 * await using web = await startWebConsole(new BubFramework(), { host: "127.0.0.1", port: 0 });
 * const page = await fetch(web.openUrl);
 * assert.equal(page.status, 200);
 * await page.body?.cancel();
 * ```
 */
export async function startWebConsole(
  framework: WebConsoleHost,
  options: WebConsoleOptions = {},
): Promise<WebConsole> {
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new BubError("invalid_input", `Invalid web console port ${port}: use 0-65535`);
  }
  if (host.trim() === "") throw new BubError("invalid_input", "The web console host is empty");
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) {
    throw new BubError(
      "invalid_input",
      `Invalid web console body limit ${maxBodyBytes}: use a whole number of bytes >= 1`,
    );
  }
  const token = options.token ?? newAccessToken();
  const hosts = new Set<string>();
  const { Hono } = await import("hono");
  const hub = new TurnHub(framework);
  const consoleApp = createConsoleApp({
    Hono,
    token,
    hosts,
    maxBodyBytes,
    hub,
    tapeStore: () => framework.getTapeStore<TapeStore>(),
    sessions: () => chatSessions(hub.chats(), framework.workspace),
    waiting: async (names) => {
      const store = framework.getTapeStore<TapeStore>();
      return store && framework.workspace
        ? await waitingApprovals(store, framework.workspace, names)
        : new Map();
    },
    chatTape: (chat) =>
      framework.workspace ? sessionTapeName(`web:${chat}`, framework.workspace) : null,
    secrets: options.secrets ?? secretEnvValues(process.env),
    keepAliveMs: options.keepAliveMs,
  });
  const server = await serveFetch((request) => consoleApp.app.fetch(request), host, port);
  for (const name of consoleHosts(host, server.port, options.allowedHosts)) hosts.add(name);
  const shown = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  const url = `http://${shown}:${server.port}`;
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> =>
    closing ??= (async () => {
      await hub.close();
      consoleApp.closeStreams();
      await server.close();
    })();
  return {
    url,
    openUrl: `${url}/#token=${token}`,
    token,
    port: server.port,
    close,
    [Symbol.asyncDispose]: close,
  };
}
