/**
 * `bub acp` as an editor starts it: the time from spawning the process to the `initialize`
 * answer, and from sending a prompt to its first `agent_message_chunk`, per runtime (Deno,
 * Node 24, Bun), against the mock model answering at once. Run it with any runtime:
 * `scripts/tool deno run -A bench/acp.bench.ts`; it spawns `bub acp` on each runtime found in
 * `.tools/` (or the current one only). Medians of `ROUNDS` cold starts.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { mockReply } from "../src/testing/_mock_reply.ts";
import { MockLlmServer } from "../src/testing/mock_llm_server.ts";

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const ROOT = join(import.meta.dirname!, "..");
const BIN = join(ROOT, "src", "cli", "bin.ts");
const TOOLS = join(ROOT, ".tools");

/** The command line of `bub acp` on each runtime that is installed. */
function runtimes(): [string, string[]][] {
  const found: [string, string[]][] = [];
  const deno = join(TOOLS, "deno", "node_modules", ".bin", "deno");
  const node = join(TOOLS, "node24", "node_modules", ".bin", "node");
  const bun = join(TOOLS, "bun", "node_modules", ".bin", "bun");
  if (existsSync(deno)) found.push(["deno", [deno, "run", "-A", BIN, "acp"]]);
  if (existsSync(node)) found.push(["node 24", [node, BIN, "acp"]]);
  if (existsSync(bun)) found.push(["bun", [bun, BIN, "acp"]]);
  return found.length ? found : [["current", [process.execPath, BIN, "acp"]]];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function once(command: string[], env: Record<string, string>, cwd: string) {
  const started = performance.now();
  const child = spawn(command[0]!, command.slice(1), {
    cwd,
    env,
    stdio: ["pipe", "pipe", "ignore"],
  });
  let firstChunk = 0;
  const client = acp.client({ name: "bench" }).onNotification(
    acp.methods.client.session.update,
    ({ params }) => {
      if (params.update.sessionUpdate === "agent_message_chunk" && firstChunk === 0) {
        firstChunk = performance.now();
      }
    },
  );
  const stream = acp.ndJsonStream(
    Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout!) as unknown as ReadableStream<Uint8Array>,
  );
  const result = await client.connectWith(stream, async (ctx) => {
    await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
    const initialized = performance.now();
    const { sessionId } = await ctx.request(acp.methods.agent.session.new, {
      cwd,
      mcpServers: [],
    });
    const sent = performance.now();
    await ctx.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    return { initialize: initialized - started, firstChunk: firstChunk - sent };
  });
  child.kill("SIGTERM");
  await new Promise((resolve) => child.once("exit", resolve));
  return result;
}

const model = await MockLlmServer.start({ script: () => mockReply.text("hello") });
const root = mkdtempSync(join(tmpdir(), "bub-acp-bench-"));
try {
  const env: Record<string, string> = {
    ...process.env as Record<string, string>,
    HOME: root,
    BUB_HOME: join(root, "bub-home"),
    BUB_MODEL: "custom:bench",
    BUB_API_BASE: model.url,
    BUB_API_KEY: "bench",
  };
  console.log(`bub acp: spawn → initialize answer, prompt → first agent_message_chunk`);
  console.log(`(medians of ${ROUNDS} cold starts; mock model answering at once)\n`);
  console.log("| runtime | spawn → initialize (ms) | prompt → first chunk (ms) |");
  console.log("| ------- | ----------------------: | ------------------------: |");
  for (const [name, command] of runtimes()) {
    const runs = [];
    for (let i = 0; i < ROUNDS; i++) runs.push(await once(command, env, root));
    const init = median(runs.map((run) => run.initialize)).toFixed(0);
    const chunk = median(runs.map((run) => run.firstChunk)).toFixed(0);
    console.log(`| ${name} | ${init} | ${chunk} |`);
  }
} finally {
  await model.close();
  rmSync(root, { recursive: true, force: true });
}
