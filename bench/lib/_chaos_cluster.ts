/**
 * The chaos bench's PostgreSQL cluster row (issue 30, Proof): turns served by two `bub gateway`
 * cluster instances (each its own process on the bench's runtime, with a home of its own and one
 * shared workspace, as a deployment has: a session's tapes are named by the workspace) over one
 * PostgreSQL tape store (a fresh database, dropped afterwards), fed by the fake Bot API and a mock
 * model, both in the bench process. Each turn is a chat of its own (one message, `TAG-c<n>`):
 * "model → bash (in the sandbox of a Telegram session) appends a line with its call id to a file
 * in the workspace → model → answer", the answer sent to the chat by the bench reply plugin
 * (`_chaos_reply_plugin.ts`). Turns run one after another.
 *
 * A random share of the turns (`killRate`) sees its serving instance (the one whose first model
 * request of the turn arrived; each instance has its own API key) SIGKILLed 0–60 ms after that
 * request; the killed instance is restarted at once, so two keep serving. The turn's message is
 * in the cluster inbox and its fork on the tape, so whichever instance takes the session's lease
 * when it expires (`cluster_lease_seconds` 2) resumes the turn; nobody sends the message again.
 * Measured: turns lost (no answer delivered by the end), duplicate lines (call ids appended more
 * than once), model calls paid twice per crash ((model requests − 2 × turns) / kills), and the
 * time from the kill to the resumed answer's `sendMessage` (kills that landed after the answer
 * are crashes, not resumptions), and turns whose tool ran under two call ids. Duplicated answers
 * are counted too.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { PostgresTapeStore } from "../../src/tape/postgres_store.ts";
import { FakeTelegramServer } from "../../src/testing/fake_telegram.ts";
import { MockLlmServer, mockReply, type MockRequest } from "../../src/testing/mock_llm_server.ts";
import { runtimeCommand } from "./_bench_process.ts";
import { freshDatabase } from "./_cluster_pg.ts";
import { percentile, sleep } from "./_process_measure.ts";
import { ReplyWatch } from "./_reply_watch.ts";

const BIN = fileURLToPath(new URL("../../src/cli/bin.ts", import.meta.url));
const PLUGIN = fileURLToPath(new URL("./_chaos_reply_plugin.ts", import.meta.url));
const INSTANCES = 2;
const LEASE_SECONDS = 2;
const FIRST_USER = 70_000;
/** A turn waits this long for its answer before the next one starts (it may still arrive). */
const ANSWER_TIMEOUT_MS = 60_000;
const START_TIMEOUT_MS = 120_000;

/** What the cluster row runs. */
export interface ClusterChaosOptions {
  /** Turns (each a chat of its own). */
  turns: number;
  /** Share of the turns whose serving instance is SIGKILLed. */
  killRate: number;
  /** The PostgreSQL server (`BUB_TEST_POSTGRES_URL`); the row makes a database of its own. */
  postgresUrl: string;
}

interface Instance {
  child: ChildProcess;
  serving: Promise<void>;
  stderr(): string;
}

function runtimeName(): string {
  return "Deno" in globalThis ? "deno" : "Bun" in globalThis ? "bun" : "node24";
}

/** Starts `bub gateway` in `workspace` (shared by the instances: a session's tapes are named by it). */
function startInstance(workspace: string, home: string, env: Record<string, string>): Instance {
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, "config.yml"), `plugins:\n  - ${JSON.stringify(PLUGIN)}\n`);
  const command = ["gateway", "--enable-channel", "telegram"];
  const [exe, args] = runtimeCommand(runtimeName(), BIN, command);
  const child = spawn(exe, args, {
    cwd: workspace,
    env: { ...process.env, ...env, BUB_HOME: home },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-8192)));
  child.stdin!.on("error", () => {});
  const serving = new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (line.includes("serving telegram")) resolve();
    });
    child.once("exit", (code, signal) => reject(new Error(`gateway exited (${code ?? signal})`)));
  });
  serving.catch(() => {});
  return { child, serving, stderr: () => stderr };
}

async function stopInstance(instance: Instance): Promise<void> {
  const { child } = instance;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

function lastUser(request: MockRequest): string {
  const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
  const user = messages.findLast((message) => message.role === "user");
  return typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "");
}

/**
 * Turns whose tool ran under more than one call id (ids are `call_<turn>_<n>`): the model was asked
 * again after the turn's tool had run, so its effect happened twice under a new id, which the
 * duplicate-lines count (per call id) does not see.
 */
export function toolRanTwice(ids: Iterable<string>): number {
  const perTurn = new Map<string, number>();
  for (const id of ids) {
    const turn = id.split("_")[1] ?? "";
    perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1);
  }
  return [...perTurn.values()].filter((n) => n > 1).length;
}

/** Runs the cluster row; its columns are those of `chaos.ts`'s other rows. */
export async function clusterChaosRow(
  options: ClusterChaosOptions,
): Promise<Record<string, string | number>> {
  const { turns, killRate } = options;
  const root = mkdtempSync(join(tmpdir(), "bub-chaos-cluster-"));
  // The instances' workspace: Telegram sessions run their commands in the sandbox (`sandbox:
  // remote`), which binds the workspace read-write.
  const workspace = join(root, "ws");
  mkdirSync(workspace);
  const lines = join(workspace, "lines.txt");
  const instances: Instance[] = [];
  const killedAt = new Map<number, number>();
  const decided = new Set<number>();
  let calls = 0;
  // Per turn, the model requests it made (last message's role, instance): shown for odd turns.
  const requests = new Map<number, string[]>();
  const kill = (slot: number, turn: number, pid: number | undefined) => {
    const instance = instances[slot]!;
    if (instance.child.pid !== pid || instance.child.exitCode !== null) return;
    instance.child.kill("SIGKILL");
    killedAt.set(turn, performance.now());
    instances[slot] = startInstance(workspace, join(root, `home-${slot}`), env(slot));
  };
  const model = await MockLlmServer.start({
    script: (request: MockRequest) => {
      const messages = (request.body as { messages: { role: string }[] }).messages;
      const tag = /TAG-c(\d+)/.exec(lastUser(request));
      const turn = Number(tag?.[1] ?? 0);
      const seen = `${messages.at(-1)?.role} from ${
        /sk-chaos-\d/.exec(JSON.stringify(request.headers))
      }`;
      requests.set(turn, [...(requests.get(turn) ?? []), seen]);
      if (messages.at(-1)?.role === "tool") return mockReply.text(`done TAG-c${turn}.`);
      const slot = Number(/sk-chaos-(\d+)/.exec(JSON.stringify(request.headers))?.[1] ?? -1);
      if (turn > 0 && slot >= 0 && !decided.has(turn)) {
        decided.add(turn);
        if (Math.random() < killRate) {
          const pid = instances[slot]?.child.pid;
          setTimeout(() => kill(slot, turn, pid), Math.random() * 60);
        }
      }
      return mockReply.toolCall("bash", { command: `echo $BUB_TOOL_CALL_ID >> ${lines}` }, {
        id: `call_${turn}_${++calls}`,
      });
    },
  });
  const telegram = await FakeTelegramServer.start();
  const database = await freshDatabase(options.postgresUrl);
  const users = Array.from({ length: turns }, (_, i) => FIRST_USER + i);
  const common: Record<string, string> = {
    BUB_MODEL: "custom:x",
    BUB_API_BASE: model.url,
    BUB_TELEGRAM_TOKEN: telegram.token,
    BUB_TELEGRAM_API_ROOT: telegram.apiRoot,
    BUB_TELEGRAM_ALLOW_USERS: users.join(","),
    BUB_TELEGRAM_ALLOW_CHATS: users.join(","),
    BUB_DEBOUNCE_SECONDS: "0.05",
    BUB_MAX_WAIT_SECONDS: "0.5",
    BUB_TAPE_STORE: database.url,
    BUB_CLUSTER_LEASE_SECONDS: String(LEASE_SECONDS),
    BUB_CLUSTER_POLL_SECONDS: "0.2",
    NO_COLOR: "1",
    NO_PROXY: "localhost,127.0.0.1",
    no_proxy: "localhost,127.0.0.1",
  };
  const env = (slot: number) => ({ ...common, BUB_API_KEY: `sk-chaos-${slot}` });
  const watch = new ReplyWatch(telegram);
  const recoveries: number[] = [];
  try {
    {
      // The tables exist before the instances race to make them.
      await using schema = new PostgresTapeStore(database.url);
      await schema.listTapes();
    }
    for (let slot = 0; slot < INSTANCES; slot++) {
      instances.push(startInstance(workspace, join(root, `home-${slot}`), env(slot)));
    }
    await Promise.all(instances.map((instance) => instance.serving)).catch((error) => {
      throw new Error(`${error.message}: ${instances.map((i) => i.stderr()).join("\n")}`);
    });
    // The channel drops updates queued before it starts polling.
    await telegram.waitForCalls("getUpdates", 1, { timeoutMs: START_TIMEOUT_MS });
    for (let turn = 1; turn <= turns; turn++) {
      const tag = `TAG-c${turn}`;
      telegram.pushText(tag, { from: telegram.makeUser(users[turn - 1]!) });
      let answeredAt = await watch.wait(tag, ANSWER_TIMEOUT_MS) ? performance.now() : NaN;
      // A kill scheduled up to 60 ms after the first request may still be pending.
      await sleep(70);
      const at = killedAt.get(turn);
      if (at === undefined) continue;
      // An answer sent before the kill: a crash of an instance that had finished, no resumption.
      if (answeredAt < at) continue;
      if (Number.isNaN(answeredAt) && await watch.wait(tag, ANSWER_TIMEOUT_MS)) {
        answeredAt = performance.now();
      }
      if (!Number.isNaN(answeredAt)) recoveries.push(answeredAt - at);
    }
    await sleep(2 * LEASE_SECONDS * 1000); // late answers, second deliveries
    watch.scan();
  } finally {
    watch.stop();
    await Promise.all(instances.map(stopInstance));
    await telegram.close();
    await model.close();
    await database.drop();
  }
  let ids: string[] = [];
  try {
    ids = readFileSync(lines, "utf8").split("\n").filter(Boolean);
  } catch { /* no tool ran */ }
  rmSync(root, { recursive: true, force: true });
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  const duplicates = [...counts.values()].filter((n) => n > 1).length;
  let lost = 0;
  let answeredTwice = 0;
  for (let turn = 1; turn <= turns; turn++) {
    const seen = watch.seen.get(`TAG-c${turn}`) ?? 0;
    if (seen === 0) lost++;
    if (seen > 1) answeredTwice++;
  }
  const crashes = killedAt.size;
  for (const [turn, list] of requests) {
    const ran = [...counts.keys()].filter((id) => id.split("_")[1] === String(turn));
    if (ran.length > 1) {
      console.log(`cluster: turn ${turn} ran its tool as ${ran.join(", ")}; requests: ${list}`);
    }
  }
  const ms = (p: number) => (recoveries.length === 0 ? "-" : percentile(recoveries, p).toFixed(0));
  if (answeredTwice > 0) console.log(`cluster: ${answeredTwice} turns answered more than once`);
  return {
    store: "cluster",
    turns,
    crashes,
    resumed: recoveries.length,
    "turns lost": lost,
    "duplicate lines": duplicates,
    "tool ran twice": toolRanTwice(counts.keys()),
    "model calls twice/crash": crashes === 0
      ? "-"
      : ((model.requests.length - 2 * turns) / crashes).toFixed(2),
    "restart→answer ms p50": ms(0.5),
    "p95": ms(0.95),
  };
}
