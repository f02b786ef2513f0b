/**
 * One row of the cluster bench: N gateway instances (`_cluster_gateway.ts`, each its own process
 * on a chosen runtime, with a home of its own and one shared workspace) over one tape store,
 * serving the Telegram channel against a fake Bot API (here, in the bench process) and the mock
 * model (its own process). Every chat is a closed loop: it sends a message carrying a unique tag,
 * waits for the reply carrying the tag, sends the next.
 * After a warm-up, a steady window counts the answered messages (turns/s) and their latency
 * (update queued → `sendMessage` received); then the chats stop and the replies still under way
 * are drained, so lost and duplicated replies cover the whole run.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { FakeTelegramServer } from "../../src/testing/fake_telegram.ts";
import { runtimeCommand } from "./_bench_process.ts";
import { ReplyWatch } from "./_reply_watch.ts";
import { cpuSecondsOf, percentile, sleep } from "./_process_measure.ts";

const GATEWAY = fileURLToPath(new URL("./_cluster_gateway.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** A chat waits this long for a reply before it sends its next message. */
const REPLY_TIMEOUT_MS = 30_000;
const START_TIMEOUT_MS = 60_000;
const FIRST_USER = 60_000;
const IDLE_MS = 2000;

/** What one row runs. */
export interface ClusterRowOptions {
  /** Gateway instances. */
  instances: number;
  /** Runtimes of the instances (`node`, `deno`, `bun`), used in turn. */
  runtimes: readonly string[];
  /** The `tape_store` setting every instance gets (`file`: each its own home's tapes). */
  tapeStore: string;
  /** The mock model's API base. */
  modelUrl: string;
  /** Chats sending messages at once. */
  sessions: number;
  /** Seconds of load before the window opens. */
  warmupSeconds: number;
  /** Seconds of the measured window. */
  measureSeconds: number;
  /** Extra environment of every instance. */
  env?: Record<string, string>;
  /**
   * Meters read when the window opens and when it closes (e.g. a server's CPU ms); the result
   * gives each one's change per turn answered in the window.
   */
  meters?: Meters;
  /** A directory to write each instance's output to (`<label>-instance-<i>.log`). */
  logDir?: string;
  /** Names the row's log files. */
  label?: string;
}

/** What one row measured. */
export interface ClusterRowResult {
  /** Answered messages per second in the window. */
  turnsPerSecond: number;
  /** Latency percentiles (ms) of the messages answered in the window. */
  p50: number;
  p95: number;
  /**
   * Messages sent over the whole run, answered, never answered (by the end of the drain),
   * answered more than once, and not answered within 30 s (the chat moved on).
   */
  sent: number;
  answered: number;
  lost: number;
  duplicated: number;
  overTimeout: number;
  /** Seconds from spawning the instances to all of them serving. */
  startupSeconds: number;
  /** CPU time of all instances in the window per turn answered in it (ms). */
  cpuMsPerTurn: number;
  /**
   * Each of {@link ClusterRowOptions.meters} and `gatewayCpuMs` (the instances' CPU ms): its
   * change in the window per turn answered.
   */
  perTurn: Record<string, number>;
  /** The same meters' change per second over 2 s with no traffic, before the load. */
  idlePerSecond: Record<string, number>;
}

/** Named readings (e.g. CPU ms used so far). */
export type Meters = Record<string, () => number | Promise<number>>;

async function read(meters: Meters): Promise<Record<string, number>> {
  const values: Record<string, number> = {};
  for (const [name, meter] of Object.entries(meters)) values[name] = await meter();
  return values;
}

interface Instance {
  child: ChildProcess;
  serving: Promise<void>;
  exited: Promise<number | string>;
  stderr(): string;
}

function startInstance(
  runtime: string,
  home: string,
  workspace: string,
  env: Record<string, string>,
  log: string | null,
): Instance {
  const [exe, args] = runtimeCommand(runtime === "node" ? "node24" : runtime, GATEWAY, [
    home,
    workspace,
  ]);
  const child = spawn(exe, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-8192)));
  if (log) {
    const file = createWriteStream(log);
    child.stdout!.pipe(file, { end: false });
    child.stderr!.pipe(file);
  }
  const exited = new Promise<number | string>((resolve) => {
    child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown"));
    child.once("error", (error) => resolve(`spawn error: ${error.message}`));
  });
  const serving = new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (line.includes("serving telegram")) resolve();
    });
    void exited.then((code) =>
      reject(new Error(`${runtime} gateway exited (${code}) before serving: ${stderr}`))
    );
  });
  serving.catch(() => {});
  return { child, serving, exited, stderr: () => stderr };
}

async function stopInstance(instance: Instance): Promise<void> {
  instance.child.stdin!.end();
  const timer = setTimeout(() => instance.child.kill("SIGKILL"), 10_000);
  await instance.exited;
  clearTimeout(timer);
}

function timeout(ms: number, what: string): Promise<never> {
  return new Promise((_, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
    (timer as { unref?: () => void }).unref?.();
  });
}

/** Runs one row. */
export async function clusterRow(options: ClusterRowOptions): Promise<ClusterRowResult> {
  const telegram = await FakeTelegramServer.start();
  const users = Array.from({ length: options.sessions }, (_, i) => FIRST_USER + i);
  const root = mkdtempSync(join(tmpdir(), "bub-cluster-bench-"));
  const env: Record<string, string> = {
    BUB_MODEL: "openai:bench",
    BUB_API_KEY: "sk-bench",
    BUB_API_BASE: options.modelUrl,
    BUB_TELEGRAM_TOKEN: telegram.token,
    BUB_TELEGRAM_API_ROOT: telegram.apiRoot,
    BUB_TELEGRAM_ALLOW_USERS: users.join(","),
    BUB_TELEGRAM_ALLOW_CHATS: users.join(","),
    BUB_DEBOUNCE_SECONDS: "0.05",
    BUB_MAX_WAIT_SECONDS: "0.5",
    BUB_TAPE_STORE: options.tapeStore,
    ...options.env,
  };
  const watch = new ReplyWatch(telegram);
  const instances: Instance[] = [];
  // One workspace for every instance, as a deployment has (session tapes are named by it).
  const workspace = join(root, "workspace");
  mkdirSync(workspace);
  try {
    const spawned = performance.now();
    for (let i = 0; i < options.instances; i++) {
      const runtime = options.runtimes[i % options.runtimes.length]!;
      const home = join(root, `instance-${i}`);
      const log = options.logDir
        ? join(options.logDir, `${options.label ?? "row"}-instance-${i}.log`)
        : null;
      instances.push(startInstance(runtime, home, workspace, { ...env, BUB_HOME: home }, log));
    }
    await Promise.race([
      Promise.all(instances.map((instance) => instance.serving)),
      timeout(START_TIMEOUT_MS, "gateway instances to serve"),
    ]);
    const startupSeconds = (performance.now() - spawned) / 1000;
    // The channel drops updates queued before it starts polling.
    await telegram.waitForCalls("getUpdates", 1, { timeoutMs: START_TIMEOUT_MS });
    const pids = instances.map((instance) => instance.child.pid!);
    const meters: Meters = {
      ...options.meters,
      gatewayCpuMs: () => pids.reduce((sum, pid) => sum + cpuSecondsOf(pid), 0) * 1000,
    };
    // Idle: what the instances (and the meters' subjects) use per second with no traffic.
    const before = await read(meters);
    await sleep(IDLE_MS);
    const after = await read(meters);
    const idlePerSecond: Record<string, number> = {};
    for (const name of Object.keys(meters)) {
      idlePerSecond[name] = (after[name]! - before[name]!) / (IDLE_MS / 1000);
    }
    const result = await load(telegram, watch, users, options, meters);
    return { ...result, startupSeconds, idlePerSecond };
  } catch (error) {
    const logs = instances.map((instance, i) => `instance ${i}: ${instance.stderr()}`);
    throw new Error(`${error instanceof Error ? error.message : error}\n${logs.join("\n")}`);
  } finally {
    watch.stop();
    await Promise.all(instances.map(stopInstance));
    await telegram.close();
    rmSync(root, { recursive: true, force: true });
  }
}

async function load(
  telegram: FakeTelegramServer,
  watch: ReplyWatch,
  users: readonly number[],
  options: ClusterRowOptions,
  meters: Meters,
): Promise<Omit<ClusterRowResult, "startupSeconds" | "idlePerSecond">> {
  const start = performance.now();
  const windowStart = start + options.warmupSeconds * 1000;
  const windowEnd = windowStart + options.measureSeconds * 1000;
  const readings = [windowStart, windowEnd].map((at) =>
    new Promise<Record<string, number>>((resolve) =>
      setTimeout(() => resolve(read(meters)), at - performance.now())
    )
  );
  const latencies: number[] = [];
  const tags: string[] = [];
  let overTimeout = 0;
  let inWindow = 0;
  await Promise.all(users.map(async (id, s) => {
    const user = telegram.makeUser(id);
    for (let m = 0; performance.now() < windowEnd; m++) {
      const tag = `TAG-s${s}-m${m}`;
      const queued = performance.now();
      telegram.pushText(`hello ${tag}`, { from: user });
      tags.push(tag);
      if (!await watch.wait(tag, REPLY_TIMEOUT_MS)) {
        overTimeout++;
        continue;
      }
      const answered = performance.now();
      if (answered >= windowStart && answered < windowEnd) {
        inWindow++;
        latencies.push(answered - queued);
      }
    }
  }));
  const [first, last] = await Promise.all(readings);
  const perTurn: Record<string, number> = {};
  for (const name of Object.keys(meters)) perTurn[name] = (last![name]! - first![name]!) / inWindow;
  await sleep(500);
  watch.scan();
  let duplicated = 0;
  for (const count of watch.seen.values()) duplicated += count - 1;
  return {
    turnsPerSecond: inWindow / options.measureSeconds,
    p50: percentile(latencies, 0.5),
    p95: percentile(latencies, 0.95),
    sent: tags.length,
    answered: watch.seen.size,
    lost: tags.filter((tag) => !watch.seen.has(tag)).length,
    overTimeout,
    duplicated,
    cpuMsPerTurn: perTurn.gatewayCpuMs!,
    perTurn,
  };
}
