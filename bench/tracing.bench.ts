/**
 * What tracing costs per turn: one Bub turn (streamed tool call → tool → streamed text, memory
 * tape) with no tracer provider registered ("off"), with the OpenTelemetry SDK registered and a
 * batch processor whose exporter drops the spans ("on"), and the same with message contents
 * recorded ("on + contents"). The modes alternate in rounds so drift hits them alike. Also the
 * CPU cost of a turn's trace wrappers alone (start, 7 empty stages, end), off and on (8 spans).
 * The mock server runs in its own Node 24 process (`bench/_mock_server.ts`).
 *
 * Run: `scripts/tool deno run -A bench/tracing.bench.ts` (`BENCH_N` turns per mode, default 300).
 *
 * @module
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { createBenchBub } from "./lib/_bench_bub.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const N = Number(process.env.BENCH_N ?? 300);
const ROUNDS = 10;
const WARMUP = 20;
const MODES = ["off", "on", "on + contents"] as const;
const CAPTURE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

type Turn = (i: number) => Promise<void>;

async function bubTurn(url: string): Promise<{ turn: Turn; close(): Promise<void> }> {
  const { bub, home } = await createBenchBub(url, {
    prefix: "bub-tracing-bench-",
    memoryTape: true,
  });
  const scope = await bub.running();
  return {
    turn: async (i) => {
      const result = await bub.processInbound(
        { channel: "bench", chatId: `c${i}`, content: `turn ${i}` },
        { stream: true },
      );
      if (result.modelOutput !== "Hello from the bench.") throw new Error(result.modelOutput);
    },
    close: async () => {
      await scope[Symbol.asyncDispose]();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/**
 * ns per turn of the turn's tracing wrappers alone (start, 7 empty stages, end) minus the bare
 * stage calls: with no provider, the cost of tracing off; with one, of 8 spans.
 */
async function hooksNs(): Promise<number> {
  const { startTurnTrace } = await import("../src/tracing/turn_trace.ts");
  const stage = () => Promise.resolve(1);
  const loops = 100_000;
  const run = async (traced: boolean) => {
    const start = performance.now();
    for (let i = 0; i < loops; i++) {
      if (traced) {
        const trace = await startTurnTrace({ channel: "bench" });
        for (let s = 0; s < 7; s++) await trace.stage("hook", stage);
        trace.end();
      } else {
        for (let s = 0; s < 7; s++) await stage();
      }
    }
    return (performance.now() - start) * 1e6 / loops;
  };
  await run(true);
  await run(false);
  return (await run(true)) - (await run(false));
}

async function measure(url: string): Promise<void> {
  const { trace } = await import("@opentelemetry/api");
  const { BatchSpanProcessor, TracerProvider } = await import("@opentelemetry/sdk-trace");
  const exporter = {
    export: (_spans: unknown[], done: (result: { code: number }) => void) => done({ code: 0 }),
    shutdown: () => Promise.resolve(),
  };
  const provider = new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter })] });
  trace.disable();
  const offNs = await hooksNs();
  trace.setGlobalTracerProvider(provider);
  const onNs = await hooksNs();
  trace.disable();
  const bub = await bubTurn(url);
  const samples: Record<string, number[]> = Object.fromEntries(MODES.map((mode) => [mode, []]));
  const setMode = (mode: string) => {
    trace.disable();
    if (mode !== "off") trace.setGlobalTracerProvider(provider);
    if (mode === "on + contents") process.env[CAPTURE] = "true";
    else delete process.env[CAPTURE];
  };
  let i = 0;
  for (const mode of MODES) {
    setMode(mode);
    for (let w = 0; w < WARMUP; w++) await bub.turn(i++);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of MODES) {
      setMode(mode);
      for (let k = 0; k < Math.ceil(N / ROUNDS); k++) {
        const start = performance.now();
        await bub.turn(i++);
        samples[mode]!.push(performance.now() - start);
      }
    }
  }
  setMode("off");
  await bub.close();
  await provider.shutdown();
  const rows = Object.fromEntries(MODES.map((mode) => {
    const sorted = samples[mode]!.sort((a, b) => a - b);
    const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
    return [mode, { p50: at(0.5), p95: at(0.95) }];
  }));
  console.log(JSON.stringify({ rows, hooksNs: { off: offNs, on: onNs, "on + contents": onNs } }));
}

function command(runtime: string, args: string[]): [string, string[]] {
  const bin = join(ROOT, ".tools/bin", runtime);
  const exe = existsSync(bin) ? bin : runtime;
  return runtime === "deno" ? [exe, ["run", "-A", ...args]] : [exe, args];
}

async function main(): Promise<void> {
  const [exe, args] = command("node24", [join(ROOT, "bench/_mock_server.ts")]);
  const server = spawn(exe, args, {
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, BENCH_TOOL: "1" },
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    server.stdout!.on("data", (chunk: Uint8Array) => {
      out += new TextDecoder().decode(chunk);
      if (out.includes("\n")) resolve(out.split("\n")[0]!.trim());
    });
    server.once("exit", (code) => reject(new Error(`mock server exited with ${code}`)));
  });
  const f = (n: number) => n.toFixed(2);
  const lines = [
    `Turn = streamed tool call → tool → streamed text, memory tape; N=${N} per mode in ${ROUNDS} alternating rounds.`,
    "",
    "| runtime | tracing | p50 ms | p95 ms | p50 over off ms | turn trace wrappers alone, ns/turn |",
    "|---|---|---|---|---|---|",
  ];
  try {
    for (const runtime of ["node24", "deno", "bun"]) {
      const script = new URL(import.meta.url).pathname;
      const [bin, argv] = command(runtime, [script, "--measure", url]);
      try {
        const out = execFileSync(bin, argv, { encoding: "utf8", maxBuffer: 1 << 26 });
        const result = JSON.parse(out.trim().split("\n").at(-1)!) as {
          rows: Record<string, { p50: number; p95: number }>;
          hooksNs: Record<string, number>;
        };
        const off = result.rows.off!.p50;
        for (const [mode, row] of Object.entries(result.rows)) {
          const over = mode === "off" ? "—" : `${row.p50 >= off ? "+" : ""}${f(row.p50 - off)}`;
          const hooks = mode === "on + contents" ? "" : result.hooksNs[mode]!.toFixed(0);
          lines.push(
            `| ${runtime} | ${mode} | ${f(row.p50)} | ${f(row.p95)} | ${over} | ${hooks} |`,
          );
        }
      } catch (error) {
        lines.push(`| ${runtime} | (failed: ${String(error).slice(0, 80)}) | | | | |`);
      }
    }
  } finally {
    server.stdin!.end();
    server.kill("SIGTERM");
  }
  console.log(lines.join("\n"));
}

if (process.argv.includes("--measure")) await measure(process.argv.at(-1)!);
else await main();
