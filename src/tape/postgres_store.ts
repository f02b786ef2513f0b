/**
 * `PostgresTapeStore`: tapes in PostgreSQL (postgres.js), same semantics and ids as the file and
 * SQLite stores; several processes may share one database.
 *
 * @module
 */
import { isRecord } from "../_internal/object.ts";
import { BubError } from "../kernel/errors.ts";
import { type EntryView, evaluateQuery, type QuerySpec } from "./_evaluate.ts";
import { deepFreeze, pyDumps } from "./_json.ts";
import { KeyedMutex } from "./_mutex.ts";
import { connectPg, type PgRow, type PgSql, redactPgUrl } from "./_pg_client.ts";
import { migratePg, type PgTables, pgTables } from "./_pg_schema.ts";
import { searchPass } from "./_search.ts";
import { type TapeEntry, validateEntry, validateTapeName } from "./entry.ts";
import type { TapeQuery } from "./query.ts";
import type { TapeStore } from "./store.ts";

/** Options of {@link PostgresTapeStore}. */
export interface PostgresTapeStoreOptions {
  /** The schema of the store's tables (default `"public"`; created when missing). */
  schema?: string;
  /** Connection pool size (default 10). */
  max?: number;
  /** Seconds to wait for a connection (default 10). */
  connectTimeoutSeconds?: number;
}

const COLUMNS = "id, kind, payload::text AS payload, meta::text AS meta, date";

function _row(row: PgRow): TapeEntry {
  const meta = JSON.parse(String(row.meta));
  return deepFreeze({
    id: Number(row.id),
    kind: String(row.kind),
    payload: JSON.parse(String(row.payload)),
    meta: isRecord(meta) ? meta : {},
    date: String(row.date),
  });
}

function _id(rows: PgRow[]): number | null {
  const id = rows[0]?.id;
  return id === null || id === undefined ? null : Number(id);
}

/**
 * Tapes in PostgreSQL. Appends take the tape's row lock (`bub_tapes.head`), so ids stay gapless
 * across processes; a batch is one statement. Anchor slices, `latestEvents` and kind filters run
 * in SQL on indexes. The schema is created (or migrated) on first use.
 *
 * @example
 * ```ts
 * import { messageEntry, PostgresTapeStore, TapeQuery } from "@bub/core";
 * // e.g. postgres://postgres@127.0.0.1:5432/postgres (scripts/postgres.sh starts one)
 * const url = Deno.env.get("BUB_TEST_POSTGRES_URL");
 * if (url) {
 *   const schema = `doc_${crypto.randomUUID().slice(0, 8)}`;
 *   await using store = new PostgresTapeStore(url, { schema });
 *   await store.append("a__b", messageEntry({ role: "user", content: "hi" }));
 *   console.assert((await new TapeQuery("a__b", store).all())[0]?.id === 1);
 * }
 * ```
 */
export class PostgresTapeStore implements TapeStore, AsyncDisposable {
  /** The connection URL with its password hidden. */
  readonly url: string;
  /** The schema of the tables. */
  readonly schema: string;
  #url: string;
  #options: PostgresTapeStoreOptions;
  #tables: PgTables;
  #sql: Promise<PgSql> | null = null;
  #closed = false;
  #appends = new KeyedMutex();

  /**
   * Creates the object; nothing connects before the first operation.
   *
   * @param url `postgres://user:password@host:port/database` (or `postgresql://`)
   * @param options schema and pool settings
   */
  constructor(url: string, options: PostgresTapeStoreOptions = {}) {
    if (typeof url !== "string" || !/^postgres(ql)?:\/\/./i.test(url)) {
      throw new TypeError(
        `Cannot create PostgresTapeStore: url must be a postgres:// or postgresql:// URL, got ${
          typeof url === "string" ? JSON.stringify(redactPgUrl(url)) : typeof url
        }`,
      );
    }
    this.#tables = pgTables(options.schema ?? "public");
    this.#url = url;
    this.url = redactPgUrl(url);
    this.schema = options.schema ?? "public";
    this.#options = options;
  }

  #open(): Promise<PgSql> {
    if (this.#closed) {
      return Promise.reject(
        new BubError("invalid_input", `Cannot use PostgresTapeStore ${this.url}: it is closed`),
      );
    }
    this.#sql ??= (async () => {
      const sql = await connectPg(this.#url, {
        ...(this.#options.max === undefined ? {} : { max: this.#options.max }),
        ...(this.#options.connectTimeoutSeconds === undefined
          ? {}
          : { connectTimeoutSeconds: this.#options.connectTimeoutSeconds }),
      });
      try {
        await migratePg(sql, this.schema);
      } catch (error) {
        await sql.end({ timeout: 0 }).catch(() => {});
        throw error;
      }
      return sql;
    })().catch((error) => {
      this.#sql = null;
      if (BubError.isInstance(error)) throw error;
      throw new BubError(
        "config",
        `Cannot open PostgreSQL tape store ${this.url}: ${(error as Error)?.message ?? error}`,
        { url: this.url, schema: this.schema },
        { cause: error },
      );
    });
    return this.#sql;
  }

  /** Sorted tape names with exactly one `__` (no sidecars). */
  async listTapes(): Promise<string[]> {
    const sql = await this.#open();
    const rows = await sql.unsafe(`SELECT name FROM ${this.#tables.tapes}`);
    return rows.map((row) => String(row.name))
      .filter((tape) => tape.split("__").length === 2)
      .sort();
  }

  /** Deletes a tape (its entries and its id counter) in one transaction. */
  async reset(tape: string): Promise<void> {
    validateTapeName(tape);
    const sql = await this.#open();
    await this.#appends.run(tape, () =>
      sql.begin(async (tx) => {
        await tx.unsafe(`DELETE FROM ${this.#tables.tapes} WHERE name = $1`, [tape]);
        await tx.unsafe(`DELETE FROM ${this.#tables.entries} WHERE tape = $1`, [tape]);
      }));
  }

  /** Appends one entry. */
  async append(tape: string, entry: TapeEntry): Promise<void> {
    await this.appendMany(tape, [entry]);
  }

  /**
   * Appends entries in one statement: the tape's head moves by the batch size (taking its row
   * lock until commit) and the rows are inserted from arrays with the ids below the new head.
   */
  async appendMany(tape: string, entries: readonly TapeEntry[]): Promise<void> {
    const columns: (string | null)[][] = [[], [], [], [], [], []];
    for (const entry of entries) {
      const checked = validateEntry(tape, entry);
      let row: (string | null)[];
      try {
        const name = checked.payload.name;
        row = [
          checked.kind,
          checked.kind === "anchor" ? (typeof name === "string" ? name : "") : null,
          checked.kind === "event" && typeof name === "string" ? name : null,
          pyDumps(checked.payload),
          pyDumps(checked.meta),
          checked.date,
        ];
      } catch (error) {
        throw new TypeError(
          `Cannot append entry to tape ${JSON.stringify(tape)}: ${(error as Error).message}`,
        );
      }
      row.forEach((value, i) => columns[i]!.push(value));
    }
    if (entries.length === 0) return;
    const sql = await this.#open();
    const { tapes, entries: table } = this.#tables;
    await this.#appends.run(tape, () =>
      sql.unsafe(
        `WITH h AS (
          INSERT INTO ${tapes} AS t (name, head) VALUES ($1, $2) ON CONFLICT (name)
          DO UPDATE SET head = t.head + $2 RETURNING head
        )
        INSERT INTO ${table} (tape, id, kind, anchor, event, payload, meta, date)
        SELECT $1, h.head - $2 + r.n, r.kind, r.anchor, r.event, r.payload::json, r.meta::json, r.date
        FROM h, unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
          WITH ORDINALITY AS r(kind, anchor, event, payload, meta, date, n)`,
        [tape, entries.length, ...columns],
      ));
  }

  async #anchorId(sql: PgSql, tape: string, name: string | null): Promise<number | null> {
    const { entries } = this.#tables;
    return _id(
      name === null
        ? await sql.unsafe(
          `SELECT id FROM ${entries} WHERE tape = $1 AND anchor IS NOT NULL ORDER BY id DESC LIMIT 1`,
          [tape],
        )
        : await sql.unsafe(
          `SELECT id FROM ${entries} WHERE tape = $1 AND anchor = $2 ORDER BY id DESC LIMIT 1`,
          [tape, name],
        ),
    );
  }

  /** The newest event of each of `names` (one indexed lookup per name), in tape order. */
  async latestEvents(tape: string, names: readonly string[]): Promise<TapeEntry[]> {
    validateTapeName(tape);
    const wanted = [...new Set(names)].filter((name) => typeof name === "string");
    if (wanted.length === 0) return [];
    const sql = await this.#open();
    const rows = await sql.unsafe(
      `SELECT e.* FROM unnest($2::text[]) AS w(name), LATERAL (
        SELECT ${COLUMNS} FROM ${this.#tables.entries}
        WHERE tape = $1 AND event = w.name ORDER BY id DESC LIMIT 1
      ) AS e ORDER BY e.id`,
      [tape, wanted],
    );
    return rows.map(_row);
  }

  /** Evaluates a query: the anchor slice, kinds and a plain limit in SQL, the rest in memory. */
  async fetchAll(query: TapeQuery): Promise<TapeEntry[]> {
    const sql = await this.#open();
    const tape = query.tape;
    let low = 0;
    let high = Number.MAX_SAFE_INTEGER;
    const notFound = (name: string) =>
      new BubError("not_found", `Anchor '${name}' was not found.`, { tape, anchor: name });
    if (query.betweenAnchorNames) {
      const [s, e] = query.betweenAnchorNames;
      const start = await this.#anchorId(sql, tape, s);
      if (start === null) throw notFound(s);
      const end = _id(
        await sql.unsafe(
          `SELECT id FROM ${this.#tables.entries} WHERE tape = $1 AND anchor = $2 AND id > $3 ORDER BY id LIMIT 1`,
          [tape, e, start],
        ),
      );
      if (end === null) throw notFound(e);
      [low, high] = [start, end];
    } else if (query.afterLast) {
      const last = await this.#anchorId(sql, tape, null);
      if (last === null) throw new BubError("not_found", "No anchors found in tape.", { tape });
      low = last;
    } else if (query.afterAnchorName !== null) {
      const found = await this.#anchorId(sql, tape, query.afterAnchorName);
      if (found === null) throw notFound(query.afterAnchorName);
      low = found;
    }
    const kinds = query.kindList;
    const plain = !query.text && !query.betweenDateRange && query.limitCount !== null;
    const params: unknown[] = [tape, low, high];
    if (kinds.length) params.push([...kinds]);
    if (plain) params.push(query.limitCount);
    const rows = await sql.unsafe(
      `SELECT ${COLUMNS} FROM ${this.#tables.entries} WHERE tape = $1 AND id > $2 AND id < $3${
        kinds.length ? " AND kind = ANY($4::text[])" : ""
      } ORDER BY id${plain ? ` LIMIT $${params.length}` : ""}`,
      params,
    );
    const view: EntryView = { entries: rows.map(_row), anchors: [] };
    const rest: QuerySpec = {
      ...query,
      tape,
      afterLast: false,
      afterAnchorName: null,
      betweenAnchorNames: null,
    };
    if (query.text) return await searchPass(evaluateQuery(view, rest, { limit: false }), query);
    return evaluateQuery(view, rest);
  }

  /** Closes the pool (running queries get 5 s). */
  async close(): Promise<void> {
    this.#closed = true;
    const sql = this.#sql;
    this.#sql = null;
    if (sql) await (await sql.catch(() => null))?.end({ timeout: 5 });
  }

  /** Same as {@link close}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
