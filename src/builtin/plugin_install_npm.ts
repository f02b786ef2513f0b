/**
 * Running npm for Bub's plugin project. On Node, the npm that ships with the Node running Bub
 * (`<prefix>/lib/node_modules/npm`) runs under that Node; otherwise (Deno, Bun, a Node without
 * its npm) the `npm` on `PATH`. npm everywhere, rather than `deno install` or `bun add`, so the
 * project has one lockfile format, one `.npmrc` and one peer-dependency rule on every runtime.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { runtimeKey } from "../_internal/runtime.ts";
import { processDriver } from "../environment/driver_select.ts";
import type { DriverChild } from "../environment/process_driver.ts";
import { BubError, type ErrorKind } from "../kernel/errors.ts";

/**
 * The command line that starts npm.
 *
 * @example
 * ```ts
 * import type { NpmCommand } from "./plugin_install_npm.ts";
 * const npm: NpmCommand = { file: "/usr/bin/npm", args: [] };
 * ```
 */
export interface NpmCommand {
  /** The executable. */
  readonly file: string;
  /** Arguments before npm's own (the npm CLI script when Node runs it). */
  readonly args: readonly string[];
}

/**
 * The npm to run: the one shipped with the running Node, else `npm` (looked up on `PATH` when it
 * starts; {@link runNpm} says so when there is none).
 */
export function findNpm(): NpmCommand {
  if (runtimeKey() === "node") {
    const cli = join(
      dirname(process.execPath),
      "..",
      "lib",
      "node_modules",
      "npm",
      "bin",
      "npm-cli.js",
    );
    if (existsSync(cli)) return { file: process.execPath, args: [cli] };
  }
  return { file: "npm", args: [] };
}

/** Options of {@link runNpm}. */
export interface RunNpmOptions {
  /** The folder npm runs in. */
  readonly cwd: string;
  /** Stops npm (SIGTERM to its process group). */
  readonly signal?: AbortSignal;
  /** The npm to run (default {@link findNpm}). */
  readonly npm?: NpmCommand;
}

/** The flags every npm call of Bub's plugin project gets. */
const COMMON = [
  "--no-audit",
  "--no-fund",
  "--no-update-notifier",
  // Plugins name @bub/core as a peer: the running copy serves it (see kernel/_core_link.ts), so
  // npm must not install a second one from the registry.
  "--legacy-peer-deps",
  // A local folder is copied like a tarball, not linked: a linked plugin would resolve its own
  // imports (@bub/core among them) from wherever the folder is.
  "--install-links",
];

async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return await new Response(stream).text();
}

/** The error kind npm's output points at. */
function kindOf(output: string): ErrorKind {
  if (/\bE404\b|404 Not Found/.test(output)) return "not_found";
  if (/\bETARGET\b|EINVALIDPACKAGENAME|EINVALIDTAGNAME/.test(output)) return "invalid_input";
  if (/ECONNREFUSED|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|ECONNRESET/.test(output)) return "temporary";
  return "unknown";
}

/**
 * Runs `npm <args>` in `options.cwd` and returns its standard output.
 *
 * @throws {BubError} when npm exits with an error: the kind from npm's error code (`not_found`
 *   for a missing package, `temporary` for an unreachable registry), the message npm's error lines
 */
export async function runNpm(args: readonly string[], options: RunNpmOptions): Promise<string> {
  const npm = options.npm ?? findNpm();
  options.signal?.throwIfAborted();
  const driver = processDriver();
  let child: DriverChild;
  try {
    child = await driver.spawn({
      file: npm.file,
      args: [...npm.args, ...args, ...COMMON],
      cwd: options.cwd,
      env: { npm_config_loglevel: "error" },
    });
  } catch (error) {
    throw new BubError(
      "config",
      `Cannot manage plugins: npm could not be started (${npm.file}: ${
        (error as Error).message
      }); install Node.js with npm, or put npm on PATH`,
      {},
      { cause: error },
    );
  }
  child.closeStdin();
  const stop = () => driver.signalGroup(child.pid, "SIGTERM");
  options.signal?.addEventListener("abort", stop, { once: true });
  try {
    const [stdout, stderr, code] = await Promise.all([
      text(child.stdout),
      text(child.stderr),
      child.exited,
    ]);
    options.signal?.throwIfAborted();
    if (code !== 0) {
      const lines = stderr.split("\n").map((line) => line.trim())
        .filter((line) => /^npm (error|ERR!)/.test(line) && !/A complete log/.test(line))
        .map((line) => line.replace(/^npm (error|ERR!)\s*/, ""))
        .filter((line) => line !== "");
      const detail = (lines.length > 0 ? lines.slice(0, 4) : [stderr.trim() || stdout.trim()])
        .join("; ");
      throw new BubError(
        kindOf(stderr),
        `npm ${args[0]} failed (exit ${code}): ${detail}`,
        { command: [npm.file, ...npm.args, ...args].join(" "), stderr },
      );
    }
    return stdout;
  } finally {
    options.signal?.removeEventListener("abort", stop);
  }
}
