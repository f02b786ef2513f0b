/**
 * The `web` channel: lets `bub gateway` serve the web console beside its other channels when
 * `enabled_channels` names `web` (an {@link Interface}: `all` leaves it out). Its turns run
 * through `streamInbound`, not through the manager's queue. The console is imported when the
 * channel starts, so that importing `@bub/core` does not load it.
 *
 * @module
 */
import { Interface } from "../channel.ts";
import type { WebConsole, WebConsoleHost } from "./console.ts";

/**
 * Options of {@link WebChannel}.
 *
 * @example
 * ```ts
 * import { BubFramework } from "@bub/core";
 * import { WebChannel, type WebChannelOptions } from "@bub/core/channels";
 * const options: WebChannelOptions = { host: new BubFramework(), print: (line) => console.log(line), port: 0 };
 * const channel = new WebChannel(options);
 * ```
 */
export interface WebChannelOptions {
  /** The framework whose turns and tapes the console shows (running when the channel starts). */
  host: WebConsoleHost;
  /** Where the URL line (and the beyond-loopback warning) is written. */
  print(line: string, warning?: boolean): void;
  /** The host to bind. Default `127.0.0.1`. */
  bindHost?: string;
  /** The port. Default `0` (a free one). */
  port?: number;
  /** The largest request body accepted, in bytes (`console_max_body_bytes`). Default 1 MiB. */
  maxBodyBytes?: number;
  /** Secret values never sent to the page (replaced by `[REDACTED]`); default: the secret-named environment variables. */
  secrets?: readonly string[];
}

/**
 * The web console as a gateway channel.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BubFramework } from "@bub/core";
 * import { WebChannel } from "@bub/core/channels";
 * const lines: string[] = [];
 * const channel = new WebChannel({ host: new BubFramework(), print: (line) => void lines.push(line), port: 0 });
 * await channel.start(new AbortController());
 * assert.match(lines.join("\n"), /http:\/\/127\.0\.0\.1:\d+\/#token=/);
 * await channel.stop();
 * ```
 */
export class WebChannel extends Interface {
  /** `web`. */
  readonly name = "web";
  readonly #options: WebChannelOptions;
  #console: WebConsole | null = null;

  /** A channel that starts the console on `start`. */
  constructor(options: WebChannelOptions) {
    super();
    this.#options = options;
  }

  /** The running console, or null. */
  get console(): WebConsole | null {
    return this.#console;
  }

  /** Starts the console and prints its URL with the token. */
  async start(_stop: AbortController): Promise<void> {
    if (this.#console) return;
    const host = this.#options.bindHost ?? "127.0.0.1";
    const { isLoopback, startWebConsole } = await import("./console.ts");
    this.#console = await startWebConsole(this.#options.host, {
      host,
      port: this.#options.port,
      secrets: this.#options.secrets,
      maxBodyBytes: this.#options.maxBodyBytes,
    });
    if (!isLoopback(host)) {
      this.#options.print(`web: warning: listening on ${host}, not loopback\n`, true);
    }
    this.#options.print(`web: ${this.#console.openUrl}\n`);
  }

  /** Stops the console (cancelling its running turns). */
  async stop(): Promise<void> {
    const running = this.#console;
    this.#console = null;
    await running?.close();
  }
}
