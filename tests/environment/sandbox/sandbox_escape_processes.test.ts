/**
 * Escape attempts on processes, signals, the network and resources through the real sandboxed
 * environment: each must fail, and Bub (this test process) must survive them.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import type { SandboxedEnvironment } from "../../../src/environment/sandboxed_environment.ts";
import { rootPidsCgroupUsable } from "../../../src/environment/_sandbox_cgroups.ts";
import { DEFAULT_SANDBOX_LIMITS } from "../../../src/environment/sandbox_profile.ts";
import { type Layout, layout, listener, run, sandboxOf, SKIP } from "./_helpers.ts";

const SECRET_NAME = "SANDBOX_ESCAPE_TEST_API_KEY";
const SECRET = "sk-planted-in-bub-env-4242";

/** This process's group id (field 5 of /proc/self/stat). */
function ownGroup(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
}

/** Host processes whose command line starts with `marker`. */
function hostProcesses(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ");
      if (cmdline.startsWith(marker)) found.push(Number(name));
    } catch { /* exited meanwhile */ }
  }
  return found;
}

async function eventually(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The pids limit binds here: RLIMIT_NPROC for a non-root Bub, a pids cgroup for root. */
const PROCESS_LIMIT_SKIP = SKIP ||
  (process.getuid?.() === 0 && !rootPidsCgroupUsable()
    ? "Bub runs as root without a writable pids cgroup: RLIMIT_NPROC does not bind uid 0"
    : false);

describe("sandbox escape attempts: processes and network", { skip: SKIP }, () => {
  let dirs: Layout;
  let env: SandboxedEnvironment;
  before(() => {
    process.env[SECRET_NAME] = SECRET;
    dirs = layout();
    env = sandboxOf(dirs);
  });
  after(async () => {
    delete process.env[SECRET_NAME];
    await env?.close();
    dirs?.remove();
  });

  test("reading /proc/<bub pid>/environ fails: Bub's pid does not exist inside", async () => {
    const result = await run(env, `cat /proc/${process.pid}/environ; test -e /proc/${process.pid}`);
    assert.notEqual(result.code, 0);
    assert.ok(!result.stdout.includes(SECRET));
  });

  test("/proc/1/environ inside (bwrap's own environment) holds no planted secret", async () => {
    const result = await run(env, "tr '\\0' '\\n' < /proc/1/environ; env");
    assert.equal(result.code, 0, result.stderr);
    assert.ok(result.stdout.includes("PATH="), result.stdout);
    assert.ok(!result.stdout.includes(SECRET), result.stdout);
    assert.ok(!result.stdout.includes(SECRET_NAME), result.stdout);
  });

  test("killing Bub by pid fails and Bub lives on", async () => {
    const result = await run(env, `kill -9 ${process.pid}`);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /No such process/i);
  });

  test("killing Bub's process group fails", async () => {
    const result = await run(env, `kill -9 -- -${ownGroup()}`);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /No such process/i);
  });

  test("ptrace: strace and gdb cannot attach to Bub", async () => {
    const result = await run(env, `strace -p ${process.pid} -e trace=none`);
    assert.notEqual(result.code, 0);
    const gdb = await run(env, `gdb -batch -p ${process.pid} -ex 'info proc'`);
    assert.ok(!gdb.stdout.includes(`process ${process.pid}`), gdb.stdout);
  });

  test("ps inside shows only the sandbox's own processes, not Bub", async () => {
    const result = await run(env, "ps -eo pid,args");
    assert.equal(result.code, 0, result.stderr);
    const pids = result.stdout.trim().split("\n").slice(1).map((line) => Number.parseInt(line));
    assert.ok(pids.length <= 4 && pids.every((pid) => pid < 10), result.stdout);
    assert.ok(!result.stdout.includes(process.execPath), result.stdout);
  });

  test("with network off, a listener of the test on 127.0.0.1 cannot be reached", async () => {
    await using server = await listener();
    const result = await run(env, `exec 3<>/dev/tcp/127.0.0.1/${server.port} && cat <&3`);
    assert.notEqual(result.code, 0);
    assert.ok(!result.stdout.includes("pong"));
    assert.equal(server.connections, 0);
  });

  test("a 10 GB file is cut at the file size limit", async () => {
    await using limited = sandboxOf(dirs, {
      limits: { ...DEFAULT_SANDBOX_LIMITS, fileBytes: 1024 * 1024 },
    });
    const result = await run(limited, "head -c 10G /dev/zero > big.bin");
    assert.notEqual(result.code, 0);
    assert.ok(statSync(join(dirs.workspace, "big.bin")).size <= 1024 * 1024);
  });

  test("a CPU burner is stopped at the CPU time limit", async () => {
    await using limited = sandboxOf(dirs, { limits: { ...DEFAULT_SANDBOX_LIMITS, cpuSeconds: 1 } });
    const result = await run(limited, "while :; do :; done");
    // SIGXCPU at the soft limit, SIGKILL at the hard one (prlimit sets both to the same value).
    assert.ok([128 + 24, 128 + 9].includes(result.code), JSON.stringify(result));
  });

  test("allocating past the memory limit fails", async () => {
    await using limited = sandboxOf(dirs, {
      limits: { ...DEFAULT_SANDBOX_LIMITS, memoryBytes: 64 * 1024 * 1024 },
    });
    const result = await run(limited, "x=$(head -c 200000000 /dev/zero | tr '\\0' a); echo ${#x}");
    assert.notEqual(result.stdout.trim(), "200000000", JSON.stringify(result));
    // RLIMIT_AS: the allocation fails; a memory cgroup: the OOM killer ends it (SIGKILL).
    assert.ok(
      /cannot allocate|memory/i.test(result.stderr) || result.code === 137,
      JSON.stringify(result),
    );
  });

  test("a background job does not outlive its command", async () => {
    const marker = `${300 + (process.pid % 97)}.123`;
    const result = await run(env, `sleep ${marker} & echo started`);
    assert.equal(result.stdout, "started\n");
    await eventually(() => hostProcesses(`sleep ${marker}`).length === 0, "the job to be gone");
  });

  test("aborting a command (the timeout's path) ends every process inside", async () => {
    const marker = `${400 + (process.pid % 89)}.321`;
    const controller = new AbortController();
    const proc = await env.spawn(`sleep ${marker} & sleep ${marker} & wait`, {
      signal: controller.signal,
    });
    proc.closeStdin();
    await eventually(() => hostProcesses(`sleep ${marker}`).length === 2, "the jobs to start");
    controller.abort();
    await proc.wait();
    await eventually(() => hostProcesses(`sleep ${marker}`).length === 0, "the jobs to be gone");
  });
});

describe("sandbox escape attempts: process limits", { skip: PROCESS_LIMIT_SKIP }, () => {
  test("200 background processes stop at the process limit", async (t) => {
    const dirs = layout();
    t.after(() => dirs.remove());
    await using env = sandboxOf(dirs, { limits: { ...DEFAULT_SANDBOX_LIMITS, processes: 40 } });
    const result = await run(
      env,
      // dash gives up at the first failed fork (bash retries for 15 s); a glob counts without one.
      "sh -c 'for i in $(seq 200); do sleep 30 & done' 2>/dev/null; set -- /proc/[0-9]*; " +
        "echo running=$#",
    );
    const running = Number(/running=(\d+)/.exec(result.stdout)?.[1] ?? "NaN");
    assert.ok(running <= 45, JSON.stringify(result));
  });

  test("a fork bomb is bounded and ends with its command; Bub survives", async (t) => {
    const dirs = layout();
    t.after(() => dirs.remove());
    await using env = sandboxOf(dirs, { limits: { ...DEFAULT_SANDBOX_LIMITS, processes: 40 } });
    const controller = new AbortController();
    const proc = await env.spawn("bomb() { bomb | bomb & }; bomb; sleep 600", {
      signal: controller.signal,
    });
    proc.closeStdin();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    controller.abort();
    await proc.wait();
    await eventually(() => !proc.isRunning(), "the bomb to be gone");
    assert.equal(hostProcesses("bash -c bomb").length, 0);
  });
});
