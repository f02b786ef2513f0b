/**
 * Large MCP tool results over stdio: the test MCP server's `big` tool (one text block of `bytes`
 * bytes) called through Bub's tool as the agent loop does. Prints, per size, the time of the
 * call, the length of the text the model gets and the process's peak RSS growth.
 *
 * Run: `scripts/tool deno run -A bench/mcp_result.ts` (also `scripts/tool node …`,
 * `scripts/tool bun …`). `SIZES=5,50` sets the sizes in MB (default 5,50,200);
 * `BUB_MCP_MAX_RESULT_BYTES` sets the cap.
 *
 * @module
 */
import { rmSync } from "node:fs";
import { dirname } from "node:path";
import process from "node:process";
import { McpManager } from "../src/tools/mcp/mcp_manager.ts";
import { parseMcpServers } from "../src/tools/mcp/config.ts";
import type { ToolContext } from "../src/tools/tool.ts";
import { stdioServer } from "../tests/tools/mcp/_stdio_config.ts";

const runtime = "Deno" in globalThis ? "deno" : "Bun" in globalThis ? "bun" : "node";
const SIZES = (process.env.SIZES ?? "5,50,200").split(",").map(Number);
const cap = process.env.BUB_MCP_MAX_RESULT_BYTES;
const folders = new Set<string>();

const manager = new McpManager({
  servers: () => parseMcpServers({ mcp_servers: { demo: stdioServer() } }),
  ...(cap ? { maxResultBytes: () => Number(cap) } : {}),
  callTimeoutSeconds: () => 600,
});
const lifespan = manager.lifespan();
await lifespan.next();
try {
  const big = manager.tools().find((tool) => tool.name === "demo.big");
  if (!big) throw new Error(`demo.big missing: ${JSON.stringify(manager.status())}`);
  const context: ToolContext = { tape: null, runId: null, state: {} };
  await big.run({ bytes: 1024 }, context);
  const rows = [];
  for (const mb of SIZES) {
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => peak = Math.max(peak, process.memoryUsage().rss), 20);
    const t0 = performance.now();
    const result = await big.run({ bytes: mb * 1_000_000 }, context);
    const ms = performance.now() - t0;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    const text = typeof result === "string" ? result : JSON.stringify(result);
    // The cut result names its spill file: remove it now, its folder at the end.
    const spilled = /is in (\S+?)\]$/.exec(text)?.[1];
    if (spilled) {
      rmSync(spilled, { force: true });
      folders.add(dirname(spilled));
    }
    rows.push({
      "result MB": mb,
      "call s": (ms / 1000).toFixed(2),
      "model sees chars": text.length,
      "peak RSS growth MB": ((peak - before) / 1e6).toFixed(0),
    });
  }
  console.log(`Large MCP results over stdio on ${runtime}`);
  console.table(rows);
} finally {
  await lifespan.return(undefined);
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
}
