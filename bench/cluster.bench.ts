/**
 * Cluster benchmark (issue 14), two tables:
 *
 * 1. Gateway instances: turns/s and latency (p50, p95: update queued → `sendMessage` received)
 *    of 1 gateway over the file store, then 1, 2 and 3 instances over one PostgreSQL, each row
 *    serving 100 Telegram chats (a fake Bot API) that send messages in closed loops, against a
 *    mock model in its own process answering after a fixed 50 ms, so the bench measures
 *    coordination, not the model (`_cluster_load.ts`). Every row also counts lost and duplicated
 *    replies over the whole run. When the machine's CPU is the limit (a shared machine), turns/s
 *    is the CPU available divided by the CPU a turn costs; the CPU columns (the instances', and
 *    the PostgreSQL server's under `scripts/postgres.sh`, per turn in the window and per second
 *    idle before the load), PostgreSQL transactions and session leases taken per turn do not
 *    depend on the machine's load and tell what coordination costs.
 * 2. Tape append throughput, PostgreSQL beside the file and SQLite stores (`_cluster_append.ts`).
 *
 * Run (about 2–3 minutes; PostgreSQL with fsync on, as the file and SQLite rows):
 *
 *     BUB_POSTGRES_DURABLE=1 scripts/postgres.sh -- scripts/tool deno run -A bench/cluster.bench.ts
 *
 * (`deno task bench:cluster`; the bench itself may run on node or bun too). Without
 * `BUB_TEST_POSTGRES_URL` only the file-store row runs. Options:
 * `--instances=1,2,3` (PostgreSQL rows), `--runtime=node` (instances' runtimes, used in turn:
 * `node`, `deno`, `bun`, e.g. `--runtime=deno,node,bun`), `--sessions=100`, `--warmup=4` and
 * `--seconds=12` (measured window), `--latency=50` (model ms), `--no-file`, `--no-append`,
 * `--logs=<dir>` (each instance's output to `<dir>/<row>-instance-<i>.log`; the directory must
 * exist; `BUB_LOG_LEVEL` sets the instances' log level).
 * Not run in CI; it asserts nothing.
 *
 * @module
 */
import process from "node:process";
import { fileURLToPath } from "node:url";
import { startServer } from "./lib/_bench_process.ts";
import { appendTable } from "./lib/_cluster_append.ts";
import { clusterRow, type ClusterRowResult } from "./lib/_cluster_load.ts";
import { freshDatabase, serverCpuSeconds } from "./lib/_cluster_pg.ts";

const RUNTIMES = new Set(["node", "deno", "bun"]);

interface Options {
  instances: number[];
  runtimes: string[];
  sessions: number;
  warmup: number;
  seconds: number;
  latency: number;
  file: boolean;
  append: boolean;
  logs: string | undefined;
}

function parseArgs(argv: readonly string[]): Options {
  const options: Options = {
    instances: [1, 2, 3],
    runtimes: ["node"],
    sessions: 100,
    warmup: 4,
    seconds: 12,
    latency: 50,
    file: true,
    append: true,
    logs: undefined,
  };
  const count = (name: string, text: string, min: number) => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < min) {
      throw new Error(`--${name} must be an integer >= ${min}, got ${JSON.stringify(text)}`);
    }
    return value;
  };
  for (const arg of argv) {
    const [name, value = ""] = arg.replace(/^--/, "").split("=", 2) as [string, string?];
    if (name === "instances") {
      options.instances = value.split(",").map((n) => count(name, n, 1));
    } else if (name === "runtime") {
      options.runtimes = value.split(",").map((runtime) => runtime.trim());
      const bad = options.runtimes.filter((runtime) => !RUNTIMES.has(runtime));
      if (bad.length) throw new Error(`--runtime takes node, deno, bun; got ${bad.join(", ")}`);
    } else if (name === "sessions") options.sessions = count(name, value, 1);
    else if (name === "warmup") options.warmup = count(name, value, 0);
    else if (name === "seconds") options.seconds = count(name, value, 1);
    else if (name === "latency") options.latency = count(name, value, 0);
    else if (name === "logs" && value) options.logs = value;
    else if (arg === "--no-file") options.file = false;
    else if (arg === "--no-append") options.append = false;
    else throw new Error(`Unknown argument ${arg} (see the header of bench/cluster.bench.ts)`);
  }
  return options;
}

const ms = (n: number) => (Number.isNaN(n) ? "–" : n.toFixed(0));

const fixed = (n: number | undefined, digits = 1) =>
  n === undefined || Number.isNaN(n) ? "–" : n.toFixed(digits);

function row(store: string, instances: number, runtimes: string[], r: ClusterRowResult): string {
  const used = Array.from({ length: instances }, (_, i) => runtimes[i % runtimes.length]);
  return "| " + [
    store,
    `${instances} (${used.join(", ")})`,
    fixed(r.turnsPerSecond),
    ms(r.p50),
    ms(r.p95),
    `${fixed(r.cpuMsPerTurn)} / ${fixed(r.perTurn.serverCpuMs)}`,
    `${fixed(r.idlePerSecond.gatewayCpuMs, 0)} / ${fixed(r.idlePerSecond.serverCpuMs, 0)}`,
    fixed(r.perTurn.transactions),
    fixed(r.perTurn.leases, 2),
    `${r.sent} / ${r.lost} / ${r.duplicated} / ${r.overTimeout}`,
    fixed(r.startupSeconds),
  ].join(" | ") + " |";
}

const options = parseArgs(process.argv.slice(2));
const url = process.env.BUB_TEST_POSTGRES_URL;
const benchRuntime = "Deno" in globalThis ? "deno" : "Bun" in globalThis ? "bun" : "node";
process.env.CLUSTER_MODEL_LATENCY_MS = String(options.latency);
const model = await startServer(fileURLToPath(new URL("./lib/_cluster_model.ts", import.meta.url)));
try {
  console.log(
    `\nGateway instances: ${options.sessions} Telegram chats in closed loops, model latency ${options.latency} ms, ` +
      `${options.warmup} s warm-up, ${options.seconds} s window (bench on ${benchRuntime})\n`,
  );
  console.log(
    "| store | instances | turns/s | p50 ms | p95 ms | CPU ms/turn: gateways / PostgreSQL | idle CPU ms/s: gateways / PostgreSQL | PostgreSQL transactions/turn | leases taken/turn | messages sent / lost / duplicated / over 30 s | startup s |",
  );
  console.log("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  const common = {
    modelUrl: model.url,
    sessions: options.sessions,
    warmupSeconds: options.warmup,
    measureSeconds: options.seconds,
    logDir: options.logs,
  };
  if (options.file) {
    const result = await clusterRow({
      ...common,
      instances: 1,
      runtimes: options.runtimes,
      tapeStore: "file",
      label: "file-1",
    });
    console.log(row("file", 1, options.runtimes, result));
  }
  if (!url) {
    console.log(
      "\n(BUB_TEST_POSTGRES_URL is unset: no PostgreSQL rows; run under scripts/postgres.sh)",
    );
  } else {
    for (const instances of options.instances) {
      const database = await freshDatabase(url);
      try {
        const result = await clusterRow({
          ...common,
          instances,
          runtimes: options.runtimes,
          tapeStore: database.url,
          label: `postgres-${instances}`,
          meters: {
            serverCpuMs: () => serverCpuSeconds() * 1000,
            transactions: () => database.transactions(),
            leases: () => database.leasesTaken(),
          },
        });
        console.log(row("postgres", instances, options.runtimes, result));
      } finally {
        await database.drop();
      }
    }
    if (options.append) await appendTable(url, benchRuntime);
  }
} finally {
  model.child.stdin!.end();
}
