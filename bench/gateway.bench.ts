/**
 * Gateway throughput: turns per second and p95 latency for 1, 10 and 100 concurrent sessions
 * through a ChannelManager running the builtin agent against a MockLlmServer (separate process,
 * zero model delay), plus memory per idle session (heap after 1000 sessions with one turn each).
 *
 * Run: `scripts/tool deno run -A bench/gateway.bench.ts` (also `node --expose-gc` / `bun`).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createInterface } from "node:readline";
import { BubFramework, ChannelManager, type ChannelMessage, type MessageHandler } from "../mod.ts";
import { MemoryChannel } from "../src/channels/mod.ts";

class ReplyChannel extends MemoryChannel {
  #waiting = new Map<string, (message: ChannelMessage) => void>();
  constructor(handler: MessageHandler) {
    super(handler, { name: "bench" });
  }
  override send(message: ChannelMessage): Promise<void> {
    this.#waiting.get(message.chatId)?.(message);
    this.#waiting.delete(message.chatId);
    return Promise.resolve();
  }
  async turn(chatId: string, content: string): Promise<number> {
    const reply = new Promise<ChannelMessage>((resolve) => this.#waiting.set(chatId, resolve));
    const start = performance.now();
    await this.push({ chatId, content, sessionId: `bench:${chatId}` });
    await reply;
    return performance.now() - start;
  }
}

async function startMock(): Promise<{ url: string; stop(): void }> {
  const script = new URL("./lib/_mock_server.ts", import.meta.url).pathname;
  const runtime = process.execPath;
  const args = "Deno" in globalThis ? ["run", "-A", script] : [script];
  const child = spawn(runtime, args, { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve) => lines.once("line", resolve));
  return { url, stop: () => child.stdin!.end() };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

function collect(): boolean {
  const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun;
  if (bun) {
    bun.gc(true);
    return true;
  }
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  return gc !== undefined;
}

function heapUsed(): number {
  collect();
  return process.memoryUsage().heapUsed;
}

const mock = await startMock();
const home = mkdtempSync(join(tmpdir(), "bub-gateway-bench-"));
let channel!: ReplyChannel;
const bub = new BubFramework({
  home,
  workspace: home,
  configFile: join(home, "config.yml"),
  loadDotenv: false,
  builtin: { env: { BUB_MODEL: "custom:bench", BUB_API_BASE: mock.url, BUB_API_KEY: "bench" } },
});
bub.loadBuiltinHooks();
bub.register({
  name: "bench-channel",
  provideChannels: (
    { messageHandler }: { messageHandler: MessageHandler },
  ) => [channel = new ReplyChannel(messageHandler)],
});
const manager = new ChannelManager(bub, { enabledChannels: ["bench"] });
const stop = new AbortController();
const serving = manager.listenAndRun({ signal: stop.signal });
while (!channel?.running) await new Promise((resolve) => setTimeout(resolve, 5));

const rows: string[] = [
  "| sessions | turns | turns/s | p50 ms | p95 ms |",
  "|---|---|---|---|---|",
];
for (const sessions of [1, 10, 100]) {
  const perSession = sessions === 100 ? 5 : sessions === 10 ? 20 : 100;
  await Promise.all(
    Array.from({ length: sessions }, (_, i) => channel.turn(`warm-${sessions}-${i}`, "warm up")),
  );
  const latencies: number[] = [];
  const start = performance.now();
  await Promise.all(Array.from({ length: sessions }, async (_, i) => {
    for (let n = 0; n < perSession; n++) {
      latencies.push(await channel.turn(`s${sessions}-${i}`, `hello ${n}`));
    }
  }));
  const seconds = (performance.now() - start) / 1000;
  rows.push(
    `| ${sessions} | ${latencies.length} | ${(latencies.length / seconds).toFixed(1)} | ${
      percentile(latencies, 0.5).toFixed(2)
    } | ${percentile(latencies, 0.95).toFixed(2)} |`,
  );
}

// Warm up with 200 idle sessions first (bounded caches, like the tape store's, fill up), then
// measure the heap growth over 1000 more sessions with one turn each.
for (let batch = 0; batch < 2; batch++) {
  await Promise.all(
    Array.from({ length: 100 }, (_, i) => channel.turn(`warm-idle-${batch}-${i}`, "one turn")),
  );
}
const before = heapUsed();
for (let batch = 0; batch < 10; batch++) {
  await Promise.all(
    Array.from({ length: 100 }, (_, i) => channel.turn(`idle-${batch}-${i}`, "one turn")),
  );
}
const perSession = (heapUsed() - before) / 1000;

console.log(rows.join("\n"));
console.log(
  `\nheap per idle session (1000 sessions, one turn each): ${(perSession / 1024).toFixed(2)} KiB` +
    (collect() ? "" : " (no gc() available: upper bound)"),
);
stop.abort();
await serving;
mock.stop();
rmSync(home, { recursive: true, force: true });
