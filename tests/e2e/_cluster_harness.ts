/**
 * Helpers of the cluster gateway test: a throwaway database, `bub gateway` on a named runtime,
 * and the checks read back from PostgreSQL.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { connectPg, type PgSql } from "../../src/tape/postgres/_client.ts";
import { BIN, type Child, childEnv, ROOT, startChild, type TempDirs } from "../cli/_spawn.ts";

/** The runtimes of the three instances. */
export const RUNTIMES = ["deno", "node24", "bun"] as const;
/** One of {@link RUNTIMES}. */
export type RuntimeName = typeof RUNTIMES[number];

/** The binary of `name` in `.tools/bin`, or null when absent. */
export function runtimeBinary(name: RuntimeName): string | null {
  const path = join(ROOT, ".tools", "bin", name);
  return existsSync(path) ? path : null;
}

/** Creates a database of its own on the server of `url`; returns its URL and a dropper. */
export async function freshDatabase(
  url: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `bub_cluster_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const admin = await connectPg(url, { max: 1 });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return {
    url: parsed.toString(),
    async drop() {
      const sql = await connectPg(url, { max: 1 });
      try {
        await sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await sql.end({ timeout: 5 });
      }
    },
  };
}

/** A running instance. */
export interface Instance {
  readonly runtime: RuntimeName;
  readonly child: Child;
  /** Its lease owner id (printed at startup). */
  readonly owner: string;
}

/** Starts `bub gateway --enable-channel telegram` on `runtime`; resolves once it serves. */
export async function startInstance(
  runtime: RuntimeName,
  dirs: TempDirs,
  env: Record<string, string>,
): Promise<Instance> {
  const bin = runtimeBinary(runtime)!;
  const args = runtime === "deno" ? ["run", "-A", BIN] : [BIN];
  const child = startChild([bin, ...args, "gateway", "--enable-channel", "telegram"], {
    cwd: dirs.workspace,
    env: childEnv(dirs, env),
  });
  try {
    await child.waitFor("serving telegram", { timeoutMs: 30_000 });
  } catch (error) {
    child.kill();
    throw new Error(`${runtime} gateway did not start: ${child.stderr}`, { cause: error });
  }
  const owner = /cluster instance (\S+)/.exec(child.stdout)?.[1];
  if (!owner) throw new Error(`${runtime} gateway is not a cluster instance: ${child.stdout}`);
  return { runtime, child, owner };
}

/** Owner → sessions it holds a live lease on. */
export async function liveLeases(sql: PgSql): Promise<Map<string, string[]>> {
  const rows = await sql.unsafe(
    `SELECT owner, key FROM bub_leases WHERE owner IS NOT NULL AND lease_until > clock_timestamp()`,
  );
  const result = new Map<string, string[]>();
  for (const row of rows) {
    const owner = String(row.owner);
    result.set(owner, [...result.get(owner) ?? [], String(row.key)]);
  }
  return result;
}

/**
 * Owner → sessions it holds a live lease on and whose turn it has started on a message not done
 * yet (its `cluster.turn_started` event names the message and the owner), less than 60 ms ago:
 * the test's model answers after 150 ms, so killing the owner then interrupts that turn. A lease
 * with only a queued message, or a turn started long ago, is not enough: the worker may not have
 * started the turn yet or may be finishing it, and killing it then leaves nothing interrupted.
 */
export async function busyLeases(sql: PgSql): Promise<Map<string, string[]>> {
  const rows = await sql.unsafe(
    `SELECT owner, key FROM bub_leases l WHERE owner IS NOT NULL AND lease_until > clock_timestamp()
       AND EXISTS (
         SELECT 1 FROM bub_inbox i JOIN bub_tape_entries e
           ON e.event = 'cluster.turn_started'
          AND e.payload->'data'->>'message_id' = i.id::text
          AND e.payload->'data'->>'owner' = l.owner
          AND e.date::timestamptz > clock_timestamp() - interval '60 milliseconds'
         WHERE i.session = l.key AND i.state = 'pending')`,
  );
  const result = new Map<string, string[]>();
  for (const row of rows) {
    const owner = String(row.owner);
    result.set(owner, [...result.get(owner) ?? [], String(row.key)]);
  }
  return result;
}

/** What the database says after the run. */
export interface ClusterFacts {
  /** Tapes whose ids are not exactly 1..n. */
  gaps: string[];
  /** Inbox rows not done. */
  pending: number;
  /** Inbox rows by tag: id and session. */
  rows: Map<string, { id: number; session: string }>;
  /** Message id → how many `cluster.turn_completed` events name it. */
  completions: Map<number, number>;
  /**
   * The cluster's records of an interrupted message (`cluster.turn_interrupted`, or the
   * `turn.interrupted {message_id}` of older versions): message id, the dead owner, and when
   * recorded (ms).
   */
  interrupted: { id: number; owner: string; at: number }[];
}

/** Reads {@link ClusterFacts}. */
export async function clusterFacts(sql: PgSql): Promise<ClusterFacts> {
  const gaps = (await sql.unsafe(
    `SELECT tape FROM bub_tape_entries GROUP BY tape
    HAVING count(*) <> max(id) OR min(id) <> 1`,
  )).map((row) => String(row.tape));
  const heads = await sql.unsafe(
    `SELECT t.name FROM bub_tapes t LEFT JOIN bub_tape_entries e ON e.tape = t.name
    GROUP BY t.name, t.head HAVING t.head <> coalesce(max(e.id), 0)`,
  );
  gaps.push(...heads.map((row) => `${row.name} (head)`));
  const pending = Number(
    (await sql.unsafe(`SELECT count(*) AS n FROM bub_inbox WHERE state <> 'done'`))[0]!.n,
  );
  const rows = new Map<string, { id: number; session: string }>();
  for (const row of await sql.unsafe(`SELECT id, session, body::text AS body FROM bub_inbox`)) {
    const tag = /TAG-[\w-]+/.exec(String(row.body))?.[0];
    if (tag) rows.set(tag, { id: Number(row.id), session: String(row.session) });
  }
  const completions = new Map<number, number>();
  const events = await sql.unsafe(
    `SELECT event, payload::text AS payload, date FROM bub_tape_entries
    WHERE event IN ('cluster.turn_completed', 'cluster.turn_interrupted', 'turn.interrupted')`,
  );
  const interrupted: { id: number; owner: string; at: number }[] = [];
  for (const row of events) {
    const data = JSON.parse(String(row.payload)).data ?? {};
    if (row.event === "turn.interrupted" && (data.fork !== undefined || !("message_id" in data))) {
      continue; // crash-safe resume's adoption of a fork, not the cluster's record
    }
    if (row.event !== "cluster.turn_completed") {
      interrupted.push({
        id: Number(data.message_id),
        owner: String(data.owner),
        at: Date.parse(String(row.date).replace(/(\.\d{3})\d+/, "$1")),
      });
      continue;
    }
    for (const id of data.message_ids ?? []) {
      completions.set(Number(id), (completions.get(Number(id)) ?? 0) + 1);
    }
  }
  return { gaps, pending, rows, completions, interrupted };
}
