/**
 * The PostgreSQL side of the cluster bench: a fresh database per row (so no inbox row, dedupe key
 * or tape of an earlier row is seen), and meters read at the edges of a row's window: the
 * server's CPU time (its processes under `scripts/postgres.sh`, from `/proc`) and the database's
 * committed and rolled back transactions (`pg_stat_database`, flushed by the server about once a
 * second, so a count over a window of several seconds is close, not exact), and the session
 * leases the cluster took (its `bub_leases` table).
 *
 * @module
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { connectPg, type PgSql } from "../../src/tape/postgres/_client.ts";
import { cpuSecondsOf } from "./_process_measure.ts";

/** A database made for one row. */
export interface RowDatabase {
  /** Its URL. */
  readonly url: string;
  /** Transactions committed or rolled back in it so far (see the module note). */
  transactions(): Promise<number>;
  /**
   * Session leases taken so far (the sum of the lease epochs: each change of owner adds one);
   * NaN before the cluster made its tables.
   */
  leasesTaken(): Promise<number>;
  /** Drops it (connections closed by force). */
  drop(): Promise<void>;
}

/** Creates a fresh database on the server at `url`. */
export async function freshDatabase(url: string): Promise<RowDatabase> {
  const name = `bench_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const admin: PgSql = await connectPg(url, { max: 1 });
  await admin.unsafe(`CREATE DATABASE "${name}"`);
  const rowUrl = new URL(url);
  rowUrl.pathname = `/${name}`;
  const db: PgSql = await connectPg(rowUrl.href, { max: 1 });
  return {
    url: rowUrl.href,
    transactions: async () => {
      await admin.unsafe("SELECT pg_stat_clear_snapshot()");
      const rows = await admin.unsafe(
        "SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1",
        [name],
      );
      return Number(rows[0]?.n ?? NaN);
    },
    leasesTaken: async () => {
      const rows = await db.unsafe("SELECT coalesce(sum(epoch), 0) AS n FROM public.bub_leases")
        .catch(() => [{ n: NaN }]);
      return Number(rows[0]?.n);
    },
    drop: async () => {
      await db.end({ timeout: 5 });
      await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end({ timeout: 5 });
    },
  };
}

/**
 * CPU seconds used so far by the server `scripts/postgres.sh` started (`BUB_POSTGRES_DIR`): its
 * postmaster and the postmaster's children (backends, background workers; a backend that ended
 * takes its time with it). NaN when the directory or `/proc` is not there.
 */
export function serverCpuSeconds(dir: string | undefined = process.env.BUB_POSTGRES_DIR): number {
  if (!dir) return NaN;
  let postmaster: number;
  try {
    postmaster = Number(readFileSync(join(dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
  } catch {
    return NaN;
  }
  let total = cpuSecondsOf(postmaster);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (parent === postmaster) total += cpuSecondsOf(Number(entry)) || 0;
    } catch { /* gone meanwhile */ }
  }
  return total;
}
