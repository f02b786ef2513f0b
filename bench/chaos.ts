/**
 * The crash-recovery chaos bench (issue 30 §2; not in CI; bounded). N turns (default 300,
 * `--turns N`), each "model → bash appends a line with its call id to a file → model → answer",
 * every turn a real `bub run` process of one session; a random share of them (`--kill-rate`,
 * default 0.3) is SIGKILLed at a random point after the turn's first model request (0–60 ms
 * later: during the model call, the tool, the second model call or the merge). After a kill the
 * driver acts as a deliverer would: it starts `bub run ,tape.info` in the session, which resumes
 * the interrupted turn first; when no answer of that turn appears (it died before any durable
 * record), it sends the turn's message again. Per store (file, SQLite, PostgreSQL: a database of
 * its own on the server of `BUB_TEST_POSTGRES_URL`, dropped afterwards) it prints:
 *
 * - turns lost: turns whose answer never arrived (target 0);
 * - duplicate lines: call ids with more than one line in the file (a completed or started tool
 *   call that ran twice; target 0);
 * - tool ran twice: turns with lines of more than one call id (the model was asked again after
 *   the turn's tool had run, so the effect happened twice under a new call id);
 * - model calls paid twice per crash: (model requests − 2 × turns) / crashes (target ≤ 1);
 * - restart → resumed answer: the recovery process's time from spawn to the answer (median, p95).
 *
 * The `cluster` row (`_chaos_cluster.ts`) serves the turns by two `bub gateway` cluster instances
 * over PostgreSQL instead (Telegram chats on a fake Bot API, one chat per turn): the serving
 * instance is SIGKILLed and restarted at once, the other (or the restarted one) takes the session
 * over when its 2 s lease expires and resumes the turn; its last column is kill → resumed answer.
 *
 * Run: `scripts/tool deno run -A bench/chaos.ts [--turns 300] [--kill-rate 0.3]
 * [--stores file,sqlite,postgres,cluster]` (or `node`, `bun`); the PostgreSQL rows need a server:
 * `scripts/postgres.sh -- scripts/tool deno run -A bench/chaos.ts`. Without one, the default
 * stores are file and SQLite. Slow by nature: two to three process starts per killed turn.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { connectPg } from "../src/tape/postgres/_client.ts";
import { MockLlmServer, mockReply, type MockRequest } from "../src/testing/mock_llm_server.ts";
import { clusterChaosRow, toolRanTwice } from "./lib/_chaos_cluster.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const BIN = join(ROOT, "src", "cli", "bin.ts");
const isDeno = "Deno" in globalThis;

function arg(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] ? process.argv[at + 1]! : fallback;
}

const TURNS = Number(arg("turns", "300"));
const KILL_RATE = Number(arg("kill-rate", "0.3"));
const PG_URL = process.env.BUB_TEST_POSTGRES_URL ?? "";
const STORES = arg("stores", PG_URL ? "file,sqlite,postgres,cluster" : "file,sqlite").split(",");

/** A database of its own on the server of `url`: its URL, and what drops it. */
async function freshDatabase(url: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `bub_chaos_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
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

/** The `BUB_TAPE_STORE` of `store`, and what removes it afterwards. */
async function tapeStore(
  store: string,
  home: string,
): Promise<{ value: string; drop?(): Promise<void> }> {
  if (store === "file") return { value: "file" };
  if (store === "sqlite") return { value: `sqlite:${join(home, "t.db")}` };
  if (store === "postgres") {
    if (!PG_URL) {
      throw new Error("the postgres store needs BUB_TEST_POSTGRES_URL (scripts/postgres.sh)");
    }
    const db = await freshDatabase(PG_URL);
    return { value: db.url, drop: () => db.drop() };
  }
  throw new Error(`unknown store "${store}" (file, sqlite, postgres)`);
}

interface Run {
  out: string;
  ms: number;
  killed: boolean;
}

/** Runs `bub <args>`; `killAt` (a promise) SIGKILLs it when it settles first. */
function bub(
  env: Record<string, string>,
  cwd: string,
  args: string[],
  killAt: Promise<void> | null = null,
): Promise<Run> {
  const command = isDeno
    ? [process.execPath, "run", "-A", BIN, ...args]
    : [process.execPath, BIN, ...args];
  const started = performance.now();
  const child = spawn(command[0]!, command.slice(1), {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let killed = false;
  child.stdout!.on("data", (chunk) => (out += String(chunk)));
  child.stderr!.on("data", () => {});
  void killAt?.then(() => {
    if (child.exitCode === null) {
      killed = true;
      child.kill("SIGKILL");
    }
  });
  return new Promise((resolveRun) =>
    child.on("exit", () => resolveRun({ out, ms: performance.now() - started, killed }))
  );
}

function lastUser(request: MockRequest): string {
  const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
  const user = messages.findLast((message) => message.role === "user");
  return typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "");
}

async function runStore(store: string): Promise<Record<string, string | number>> {
  const root = mkdtempSync(join(tmpdir(), "bub-chaos-"));
  const dirs = { home: join(root, "home"), bubHome: join(root, "bub"), ws: join(root, "ws") };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  const lines = join(dirs.ws, "lines.txt");
  const hook: { onRequest: (() => void) | null } = { onRequest: null };
  let calls = 0;
  const server = await MockLlmServer.start({
    script: (request: MockRequest) => {
      hook.onRequest?.();
      hook.onRequest = null;
      const messages = (request.body as { messages: { role: string }[] }).messages;
      const turn = /turn (\d+)/.exec(lastUser(request))?.[1] ?? "x";
      if (messages.at(-1)?.role === "tool") return mockReply.text(`done ${turn}.`);
      return mockReply.toolCall("bash", { command: `echo $BUB_TOOL_CALL_ID >> ${lines}` }, {
        id: `call_${turn}_${++calls}`,
      });
    },
  });
  const tapes = await tapeStore(store, dirs.bubHome);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: dirs.home,
    BUB_HOME: dirs.bubHome,
    NO_COLOR: "1",
    BUB_MODEL: "custom:x",
    BUB_API_BASE: server.url,
    BUB_API_KEY: "sk-chaos",
    BUB_TAPE_STORE: tapes.value,
    ...(isDeno ? { DENO_DIR: join(process.env.HOME ?? "", ".cache", "deno") } : {}),
  };
  const answered = new Set<number>();
  const note = (text: string) => {
    for (const match of text.matchAll(/done (\d+)\./g)) answered.add(Number(match[1]));
  };
  let crashes = 0;
  const recoveries: number[] = [];
  try {
    for (let turn = 1; turn <= TURNS; turn++) {
      const kill = Math.random() < KILL_RATE;
      const killAt = kill
        ? new Promise<void>((resolveKill) => {
          hook.onRequest = () => setTimeout(resolveKill, Math.random() * 60);
        })
        : null;
      const first = await bub(env, dirs.ws, ["run", "--no-stream", `turn ${turn}`], killAt);
      hook.onRequest = null;
      note(first.out);
      if (!first.killed) continue;
      crashes++;
      const probe = await bub(env, dirs.ws, ["run", "--no-stream", ",tape.info"]);
      note(probe.out);
      if (answered.has(turn)) {
        if (new RegExp(`done ${turn}\\.`).test(probe.out)) recoveries.push(probe.ms);
        continue;
      }
      // Nothing durable was left: the deliverer sends the message again.
      note((await bub(env, dirs.ws, ["run", "--no-stream", `turn ${turn}`])).out);
    }
  } finally {
    await server.close();
    await tapes.drop?.();
  }
  const ids = readFileSync(lines, "utf8").split("\n").filter(Boolean);
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  const duplicates = [...counts.values()].filter((n) => n > 1).length;
  const lost = Array.from({ length: TURNS }, (_, i) => i + 1).filter((t) => !answered.has(t));
  const sorted = recoveries.sort((a, b) => a - b);
  const pct = (p: number) =>
    sorted.length === 0 ? "-" : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!
      .toFixed(0);
  rmSync(root, { recursive: true, force: true });
  return {
    store,
    turns: TURNS,
    crashes,
    resumed: recoveries.length,
    "turns lost": lost.length,
    "duplicate lines": duplicates,
    "tool ran twice": toolRanTwice(counts.keys()),
    "model calls twice/crash": crashes === 0
      ? "-"
      : ((server.requests.length - 2 * TURNS) / crashes).toFixed(2),
    "restart→answer ms p50": pct(0.5),
    "p95": pct(0.95),
  };
}

console.log(
  `chaos: ${TURNS} turns per store, kill rate ${KILL_RATE}, runtime ${
    isDeno ? "deno" : "Bun" in globalThis ? "bun" : "node"
  }`,
);
const rows = [];
for (const store of STORES) {
  if (store !== "cluster") rows.push(await runStore(store));
  else if (!PG_URL) {
    throw new Error("the cluster row needs BUB_TEST_POSTGRES_URL (scripts/postgres.sh)");
  } else {rows.push(
      await clusterChaosRow({ turns: TURNS, killRate: KILL_RATE, postgresUrl: PG_URL }),
    );}
}
console.table(rows);
