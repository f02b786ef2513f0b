/**
 * A PostgreSQL server of a test's own (`scripts/postgres.sh start`) that the test can stop and
 * start again on the same port: a real outage. Available where the shared test server is
 * (`BUB_TEST_POSTGRES_URL`, see `_postgres.ts`), since both need the server binaries.
 *
 * @module
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { promisify } from "node:util";

const run = promisify(execFile);
const SCRIPT = join(import.meta.dirname ?? ".", "..", "..", "scripts", "postgres.sh");

/** A throwaway server; `stop()` / `start()` it, dispose it to remove it. */
export interface OwnPgServer extends AsyncDisposable {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  readonly url: string;
  /** The same server with a password in its URL (trust auth ignores it). */
  readonly urlWithPassword: string;
  /** Stops the server (fast shutdown: open connections are terminated). */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
}

/** Runs `pg_ctl` as the server's user (postgres when we are root: it refuses root). */
async function pgCtl(bindir: string, args: string[]): Promise<void> {
  const command = join(bindir, "pg_ctl");
  if (process.getuid?.() === 0) await run("runuser", ["-u", "postgres", "--", command, ...args]);
  else await run(command, args);
}

/** Starts a server of the test's own. */
export async function startOwnPgServer(): Promise<OwnPgServer> {
  const { stdout } = await run("bash", [SCRIPT, "start"]);
  const url = /^BUB_TEST_POSTGRES_URL=(.*)$/m.exec(stdout)?.[1];
  const dir = /^BUB_POSTGRES_DIR=(.*)$/m.exec(stdout)?.[1];
  if (!url || !dir) throw new Error(`scripts/postgres.sh start printed no URL: ${stdout}`);
  const bindir = readFileSync(join(dir, "bindir"), "utf8").trim();
  const port = new URL(url).port;
  return {
    url,
    urlWithPassword: url.replace("postgres@", "postgres:s3cret-pw@"),
    stop: () => pgCtl(bindir, ["-D", join(dir, "data"), "-m", "fast", "-w", "stop"]),
    start: () =>
      pgCtl(bindir, [
        "-D",
        join(dir, "data"),
        "-l",
        join(dir, "server.log"),
        "-w",
        "-t",
        "60",
        "-o",
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
        "start",
      ]),
    async [Symbol.asyncDispose]() {
      await run("bash", [SCRIPT, "stop", dir]);
    },
  };
}
