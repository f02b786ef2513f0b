/**
 * One long session (issue 13 items 3 and 4): the same turn as `bench/turn.bench.ts` (streamed
 * tool call → tool → streamed text, builtin plugin, durable file tape, mock server in its own
 * Node 24 process), but every turn in the SAME session, so the history grows. At 10 / 100 / 300 /
 * 1000 prior turns (`BENCH_POINTS`) it times `BENCH_K` turns (default 15, median) and, beside
 * them, a raw `fetch` + SSE client posting the exact request bytes of Bub's last turn (the same
 * history). It also reports the heap retained per turn after GC between two points (Node and
 * Deno need `--expose-gc`; the driver passes it).
 *
 * Run: `scripts/tool deno run -A bench/session.bench.ts` (all three runtimes, one after another),
 * or `... bench/session.bench.ts --measure <url> [--memory]` for one runtime against a server.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import process from "node:process";
import { createBenchBub } from "./lib/_bench_bub.ts";
import { collectGarbage, runtimeCommand, startServer } from "./lib/_bench_process.ts";

const K = Number(process.env.BENCH_K ?? 15);
const POINTS = (process.env.BENCH_POINTS ?? "10,100,300,1000").split(",").map(Number);
const TEXT = ["Hello ", "from ", "the ", "bench."];

async function serve(): Promise<void> {
  const { MockLlmServer } = await import("../src/testing/mock_llm_server.ts");
  const server = await MockLlmServer.start({
    script: (request) => {
      const body = request.body as { messages?: Array<{ role?: string }> };
      if (body.messages?.at(-1)?.role !== "tool") {
        return {
          toolCalls: [{ name: "bench_noop", arguments: { value: 1 } }],
          usage: { promptTokens: 10, completionTokens: 2 },
        };
      }
      return { text: TEXT, usage: { promptTokens: 12, completionTokens: 4 } };
    },
  });
  console.log(server.url);
  process.stdin.resume();
  process.stdin.on("end", () => void server.close().then(() => process.exit(0)));
  process.once("SIGTERM", () => void server.close().then(() => process.exit(0)));
}

async function drain(response: Response): Promise<void> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  for (const line of text.split("\n")) {
    if (line.startsWith("data: ") && line !== "data: [DONE]") JSON.parse(line.slice(6));
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function measure(url: string, memoryTape: boolean): Promise<void> {
  // Record the request bodies Bub sends, so the raw client can post the same bytes.
  // Kept as sent (text, or the bytes the runtime's fetch gets): recording must not add work.
  const bodies: Array<string | Uint8Array<ArrayBuffer>> = [];
  const original = globalThis.fetch;
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    const body = init?.body;
    if (typeof body === "string" || body instanceof Uint8Array) {
      bodies.push(body as string | Uint8Array<ArrayBuffer>);
    }
    if (bodies.length > 4) bodies.splice(0, bodies.length - 4);
    return original(input, init);
  }) as typeof fetch;
  const { bub, home } = await createBenchBub(url, {
    prefix: "bub-session-bench-",
    memoryTape,
    env: { BUB_MAX_TOKENS: "1024" },
  });
  const scope = await bub.running();
  let done = 0;
  const turn = async () => {
    const result = await bub.processInbound(
      { channel: "bench", chatId: "one", content: `turn ${done}` },
      { stream: true },
    );
    done++;
    if (result.modelOutput !== TEXT.join("")) throw new Error(`unexpected ${result.modelOutput}`);
  };
  const raw = async (body: string | Uint8Array<ArrayBuffer>) => {
    const response = await original(`${url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-bench" },
      body,
    });
    await drain(response);
  };
  const rows: Record<string, unknown>[] = [];
  let heapAt: { turns: number; heap: number } | null = null;
  try {
    for (const point of POINTS) {
      while (done < point) await turn();
      if (collectGarbage()) {
        collectGarbage();
        const heap = process.memoryUsage().heapUsed;
        if (heapAt) {
          rows.push({ retainedKbPerTurn: (heap - heapAt.heap) / 1024 / (done - heapAt.turns) });
        }
        heapAt = { turns: done, heap };
      }
      const bub: number[] = [];
      for (let i = 0; i < K; i++) {
        const start = performance.now();
        await turn();
        bub.push(performance.now() - start);
      }
      const [first, second] = bodies.slice(-2);
      const rawTimes: number[] = [];
      for (let i = 0; i < K; i++) {
        const start = performance.now();
        await raw(first!);
        await raw(second!);
        rawTimes.push(performance.now() - start);
      }
      rows.push({
        prior: point,
        bub: median(bub),
        raw: median(rawTimes),
        requestKb: (first!.length + second!.length) / 2 / 1024,
      });
    }
  } finally {
    await scope[Symbol.asyncDispose]();
    rmSync(home, { recursive: true, force: true });
  }
  console.log(JSON.stringify(rows));
}

async function main(): Promise<void> {
  const script = new URL(import.meta.url).pathname;
  const server = await startServer(script);
  const runtimes = (process.env.BENCH_RUNTIMES ?? "node24,deno,bun").split(",");
  const lines = [
    `One session, turns timed at ${
      POINTS.join(" / ")
    } prior turns (median of ${K}); raw = fetch + SSE posting Bub's last two request bodies.`,
    "",
    "| runtime | tape | prior turns | Bub ms | raw same bytes ms | Bub / raw | request KB |",
    "|---|---|---:|---:|---:|---:|---:|",
  ];
  const heap: string[] = [];
  try {
    for (const runtime of runtimes) {
      for (const memory of [false, true]) {
        const extra = memory ? ["--memory"] : [];
        const [exe, args] = runtimeCommand(runtime, script, [...extra, "--measure", server.url]);
        const tape = memory ? "memory" : "file";
        let rows: Record<string, number>[];
        try {
          const out = execFileSync(exe, args, { encoding: "utf8", maxBuffer: 1 << 26 });
          rows = JSON.parse(out.trim().split("\n").at(-1)!);
        } catch (error) {
          lines.push(`| ${runtime} | ${tape} | (failed: ${String(error).slice(0, 80)}) | | | | |`);
          continue;
        }
        const retained: string[] = [];
        for (const row of rows) {
          if (row.retainedKbPerTurn !== undefined) {
            retained.push(row.retainedKbPerTurn.toFixed(2));
            continue;
          }
          lines.push(
            `| ${runtime} | ${tape} | ${row.prior} | ${row.bub!.toFixed(2)} | ${
              row.raw!.toFixed(2)
            } | ${(row.bub! / row.raw!).toFixed(2)} | ${row.requestKb!.toFixed(1)} |`,
          );
        }
        heap.push(`| ${runtime} | ${tape} | ${retained.join(" / ") || "n/a"} |`);
        // Progress on stderr: a long run interrupted still shows what it measured.
        console.error(`${runtime} ${tape}: ${JSON.stringify(rows)}`);
      }
    }
  } finally {
    server.child.stdin!.end();
    server.child.kill("SIGTERM");
  }
  lines.push(
    "",
    `Heap retained per turn after GC, between consecutive points (${
      POINTS.join(" → ")
    } prior turns):`,
    "",
    "| runtime | tape | KB/turn |",
    "|---|---|---|",
    ...heap,
  );
  console.log(lines.join("\n"));
}

if (process.argv.includes("--server")) await serve();
else if (process.argv.includes("--measure")) {
  await measure(process.argv.at(-1)!, process.argv.includes("--memory"));
} else await main();
