/**
 * `bub web`: serves the web console of this framework until SIGINT, SIGTERM or the command's
 * signal, printing one line with the URL to open (it carries the access token).
 *
 * @module
 */
import process from "node:process";
import { isLoopback, startWebConsole } from "../channels/web/console.ts";
import type { KernelFramework } from "../kernel/framework.ts";
import { CliExit, type CliOutput } from "./cli_io.ts";
import { consoleSecrets } from "./console_secrets.ts";
import { loadConsoleSettings } from "./settings.ts";
import { stopSignal } from "./stop_signal.ts";

/** Options of {@link webCommand}. */
export interface WebCommandOptions {
  /** The host to bind (`--host`). Default `127.0.0.1`. */
  host?: string;
  /** The port (`--port`), as typed; `0` picks a free one. Default `0`. */
  port?: string | number;
  /** Stops the console besides SIGINT and SIGTERM. */
  signal?: AbortSignal;
}

/** Parses `--port`: an integer 0–65535, else a `CliExit`. */
export function parsePort(value: string | number | undefined): number {
  if (value === undefined) return 0;
  const text = String(value).trim();
  const port = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(port) || port > 65535) {
    throw new CliExit(2, `bub web: invalid --port ${JSON.stringify(text)}: use 0-65535`);
  }
  return port;
}

/** Resolves once `signal` aborts (never when it is undefined). */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/** Runs `bub web` (see the module doc). */
export async function webCommand(
  framework: KernelFramework,
  options: WebCommandOptions,
  output: CliOutput,
): Promise<void> {
  const host = options.host ?? "127.0.0.1";
  const port = parsePort(options.port);
  using stop = stopSignal(options.signal);
  const sources = { env: process.env, config: framework.config };
  const { console_max_body_bytes } = loadConsoleSettings(sources);
  await using _scope = await framework.running();
  await using web = await startWebConsole(framework, {
    host,
    port,
    secrets: consoleSecrets(sources),
    maxBodyBytes: console_max_body_bytes,
  });
  if (!isLoopback(host)) {
    output.err(
      `bub web: warning: listening on ${host}, not loopback; anyone who can reach it and ` +
        `learns the token can run the agent\n`,
    );
  }
  output.out(`${web.openUrl}\n`);
  await aborted(stop.signal);
}
