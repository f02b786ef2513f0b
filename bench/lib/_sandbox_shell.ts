/**
 * The sandbox rows of `shell.bench.ts`: spawn-to-exit of `true` on the host and in a sandboxed
 * session's environment (network off, and a host allowlist, which adds the egress relay), each with
 * and without the spare sandbox (`_sandbox_spare.ts`: "cold" is every command paying its own
 * sandbox, as before the spare), runs interleaved with a pause between commands as a chat has;
 * then a session's FIRST command (a fresh environment each run: cold, or prepared when the turn
 * starts), then 300 sandboxed commands at once against 300 raw spawns.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { processDriver } from "../../src/environment/driver_select.ts";
import { LocalEnvironment } from "../../src/environment/local_environment.ts";
import { createSandboxDriver } from "../../src/environment/sandbox_driver.ts";
import { probeSandbox } from "../../src/environment/sandbox_probe.ts";
import { SandboxedEnvironment } from "../../src/environment/sandboxed_environment.ts";
import {
  DEFAULT_SANDBOX_LIMITS,
  type SandboxNetwork,
  type SandboxProfile,
} from "../../src/environment/sandbox_profile.ts";

/** Runs of each path (interleaved), the pause between two commands, and the burst size. */
const RUNS = 40;
const WARMUP = 5;
const PAUSE_MS = 50;
const BURST = 300;
/** Stand-ins for the model call between a turn's start and its first bash command. */
const MODEL_MS = [30, 100];

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function runTrue(env: LocalEnvironment): Promise<void> {
  const proc = await env.spawn(["true"]);
  proc.closeStdin();
  await Promise.all([proc.stdout.cancel(), proc.stderr.cancel()]);
  const code = await proc.wait();
  if (code !== 0) throw new Error(`true exited with ${code} in ${env.constructor.name}`);
}

function rawTrue(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("true", [], { stdio: "ignore", detached: true });
    child.once("error", reject);
    child.once("exit", () => resolve());
  });
}

/** The sandbox rows, printed; nothing when the sandbox cannot run here. */
export async function printSandboxRows(): Promise<void> {
  const probe = await probeSandbox();
  if (!probe.ok) {
    console.log(`\nsandbox rows skipped: ${probe.reason}`);
    return;
  }
  const workspace = mkdtempSync(join(tmpdir(), "bub-bench-sandbox-"));
  const profile = (network: SandboxNetwork, processes = 512): SandboxProfile => ({
    workspace,
    network,
    readOnly: [process.execPath],
    readWrite: [],
    hidden: [],
    home: process.env.HOME ?? null,
    limits: { ...DEFAULT_SANDBOX_LIMITS, processes },
  });
  const sandboxed = (network: SandboxNetwork, spare: boolean, processes?: number) =>
    new LocalEnvironment(workspace, {
      driver: createSandboxDriver(processDriver(), profile(network, processes), { spare }),
    });
  const allow: SandboxNetwork = { allow: ["example.com"] };
  const paths: [string, LocalEnvironment][] = [
    ["host", new LocalEnvironment(workspace)],
    ["sandbox, network off, cold (before)", sandboxed("off", false)],
    ["sandbox, network off, spare", sandboxed("off", true)],
    ["sandbox, allowlist, cold (before)", sandboxed(allow, false)],
    ["sandbox, allowlist, spare", sandboxed(allow, true)],
  ];
  try {
    const samples: number[][] = paths.map(() => []);
    for (let i = 0; i < WARMUP + RUNS; i++) {
      for (const [k, [, env]] of paths.entries()) {
        await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
        const start = performance.now();
        await runTrue(env);
        if (i >= WARMUP) samples[k]!.push(performance.now() - start);
      }
    }
    const host = median(samples[0]!);
    console.log("");
    console.log(
      `sandboxed commands: p50 of ${RUNS} runs of \`true\` per path, interleaved, ${PAUSE_MS} ms ` +
        'apart; "cold" starts each command\'s sandbox when it is asked for (before the spare), ' +
        '"spare" runs it in the sandbox started after the previous command. Target: ≤ host + 15 ms.',
    );
    console.log("");
    console.log("| path | p50 ms | over host ms |");
    console.log("|---|---|---|");
    for (const [k, [name]] of paths.entries()) {
      const p50 = median(samples[k]!);
      console.log(`| ${name} | ${p50.toFixed(1)} | ${(p50 - host).toFixed(1)} |`);
    }
    await printFirstCommandRows(profile("off"));
    // A burst: one session (its process limit raised: each command is ~3 processes).
    await using burst = sandboxed("off", true, 4 * BURST);
    const rounds: [number[], number[]] = [[], []];
    for (let round = 0; round < 3; round++) {
      let start = performance.now();
      await Promise.all(Array.from({ length: BURST }, () => runTrue(burst)));
      rounds[0].push(performance.now() - start);
      start = performance.now();
      await Promise.all(Array.from({ length: BURST }, () => rawTrue()));
      rounds[1].push(performance.now() - start);
    }
    const [sandboxMs, rawMs] = [median(rounds[0]), median(rounds[1])];
    console.log("");
    console.log(
      `${BURST} commands at once (\`true\`, median of 3 alternating rounds, wall time): ` +
        `sandboxed (one session, network off) ${sandboxMs.toFixed(0)} ms, raw ` +
        `child_process.spawn ${rawMs.toFixed(0)} ms, ratio ${(sandboxMs / rawMs).toFixed(2)}×`,
    );
  } finally {
    for (const [, env] of paths) await env.close();
    rmSync(workspace, { recursive: true, force: true });
  }
}

/** The first-command rows alone (`shell.bench.ts --sandbox-first`). */
export async function printFirstCommandSandboxRows(): Promise<void> {
  const probe = await probeSandbox();
  if (!probe.ok) {
    console.log(`\nsandbox rows skipped: ${probe.reason}`);
    return;
  }
  const workspace = mkdtempSync(join(tmpdir(), "bub-bench-sandbox-"));
  try {
    await printFirstCommandRows({
      workspace,
      network: "off",
      readOnly: [process.execPath],
      readWrite: [],
      hidden: [],
      home: process.env.HOME ?? null,
      limits: DEFAULT_SANDBOX_LIMITS,
    });
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

/**
 * A session's first command, each run in a fresh environment (created, used once, closed): on the
 * host; sandboxed and cold (before `prepare`, and still a comma command's: it has no model call
 * to hide a start behind, and a spare it waited for cost more than a direct start, measured); and
 * a turn whose model asks for bash, the sandbox prepared when the turn starts and the command run
 * after a model call of {@link MODEL_MS} (the command alone is timed).
 */
async function printFirstCommandRows(profile: SandboxProfile): Promise<void> {
  type Path = [string, () => LocalEnvironment, (env: LocalEnvironment) => Promise<void>];
  const sandbox = () => new SandboxedEnvironment(profile);
  const prepared = (ms: number) => async (env: LocalEnvironment) => {
    const started = (env as SandboxedEnvironment).prepare();
    await new Promise((resolve) => setTimeout(resolve, ms));
    await started;
  };
  const paths: Path[] = [
    ["host", () => new LocalEnvironment(profile.workspace), async () => {}],
    ["sandbox, cold (before; a comma command still)", sandbox, async () => {}],
    ...MODEL_MS.map((ms): Path => [
      `sandbox, prepared at turn start, ${ms} ms model call`,
      sandbox,
      prepared(ms),
    ]),
  ];
  const samples: number[][] = paths.map(() => []);
  for (let i = 0; i < WARMUP + RUNS; i++) {
    for (const [k, [, create, before]] of paths.entries()) {
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      const env = create();
      try {
        await before(env);
        const start = performance.now();
        await runTrue(env);
        if (i >= WARMUP) samples[k]!.push(performance.now() - start);
      } finally {
        await env.close();
      }
    }
  }
  const host = median(samples[0]!);
  console.log("");
  console.log(
    `a session's first command: p50 of ${RUNS} runs of \`true\`, each in a fresh environment ` +
      "(network off), interleaved; the host row is the baseline.",
  );
  console.log("");
  console.log("| path | p50 ms | over host ms | ratio to host |");
  console.log("|---|---|---|---|");
  for (const [k, [name]] of paths.entries()) {
    const p50 = median(samples[k]!);
    console.log(
      `| ${name} | ${p50.toFixed(1)} | ${(p50 - host).toFixed(1)} | ${(p50 / host).toFixed(2)}× |`,
    );
  }
}
