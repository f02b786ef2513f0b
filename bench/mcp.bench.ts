/**
 * MCP tool-call latency: the test MCP server (`tests/tools/mcp/_mcp_server.ts`, built with the
 * SDK) over stdio (a child process of the current runtime) and over Streamable HTTP on
 * 127.0.0.1 (in this process), called through Bub's tool (`demo.add` → `tools/call`) as the
 * agent loop and comma commands do. Prints the start time of each server and the median, p95
 * and mean of sequential calls after a warm-up.
 *
 * Run: `scripts/tool deno run -A bench/mcp.bench.ts` (also `scripts/tool node …`,
 * `scripts/tool bun …`). `CALLS=<n>` sets the number of measured calls (default 500).
 *
 * @module
 */
import process from "node:process";
import { McpManager } from "../src/tools/mcp/mcp_manager.ts";
import { parseMcpServers } from "../src/tools/mcp/config.ts";
import type { ToolContext } from "../src/tools/tool.ts";
import { startHttpMcpServer } from "../tests/tools/mcp/_mcp_server.ts";
import { stdioServer } from "../tests/tools/mcp/_stdio_config.ts";

const runtime = "Deno" in globalThis ? "deno" : "Bun" in globalThis ? "bun" : "node";
const CALLS = Number(process.env.CALLS ?? 500);
const WARMUP = 50;

interface Row {
  transport: string;
  "start ms": string;
  calls: number;
  "median ms": string;
  "p95 ms": string;
  "mean ms": string;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

async function measure(transport: string, server: Record<string, unknown>): Promise<Row> {
  const manager = new McpManager({
    servers: () => parseMcpServers({ mcp_servers: { demo: server } }),
  });
  const started = performance.now();
  const lifespan = manager.lifespan();
  await lifespan.next();
  const startMs = performance.now() - started;
  try {
    const add = manager.tools().find((tool) => tool.name === "demo.add");
    if (!add) {
      throw new Error(`${transport}: demo.add missing: ${JSON.stringify(manager.status())}`);
    }
    const context: ToolContext = { tape: null, runId: null, state: {} };
    for (let i = 0; i < WARMUP; i++) await add.run({ a: i, b: 1 }, context);
    const times: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const t0 = performance.now();
      const result = await add.run({ a: i, b: 1 }, context);
      times.push(performance.now() - t0);
      if (result !== String(i + 1)) throw new Error(`bad result ${String(result)}`);
    }
    times.sort((a, b) => a - b);
    return {
      transport,
      "start ms": startMs.toFixed(0),
      calls: CALLS,
      "median ms": percentile(times, 0.5).toFixed(3),
      "p95 ms": percentile(times, 0.95).toFixed(3),
      "mean ms": (times.reduce((sum, t) => sum + t, 0) / times.length).toFixed(3),
    };
  } finally {
    await lifespan.return(undefined);
  }
}

const http = await startHttpMcpServer();
try {
  const rows = [
    await measure("stdio", stdioServer()),
    await measure("streamable http", { url: http.url }),
  ];
  console.log(`MCP tool calls on ${runtime} (${CALLS} sequential calls after ${WARMUP} warm-up)`);
  console.table(rows);
} finally {
  await http[Symbol.asyncDispose]();
}
