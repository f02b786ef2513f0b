/**
 * A/B of one streamed chat call's `fetch` on the runtime that runs it: the same request bytes
 * (Bub's own, recorded from a fresh-session turn) sent with one detail changed at a time — the
 * body as a flat string, a string built per call, bytes; with or without an abort signal and
 * timers; the response read by `getReader()` with or without `releaseLock()`, by `for await`, by
 * Bun's `readMany()`, or whole (`text()`, not streamed: the floor). CPU ms per call in
 * alternating rounds in one process, against the mock server of `turn.bench.ts`.
 *
 * Run: `bun bench/fetch_ab.ts` (or `node`, `deno run -A`). `BENCH_N` calls per round (default
 * 400), `BENCH_ROUNDS` (default 7), `BENCH_PRIOR` prior turns of the recorded session (default 0).
 *
 * @module
 */
import { rmSync } from "node:fs";
import process from "node:process";
import { recordBodies, TEXT } from "./_turn_raw.ts";
import { createBenchBub } from "./_bench_bub.ts";
import { startServer } from "./_bench_process.ts";

const N = Number(process.env.BENCH_N ?? 400);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const PRIOR = Number(process.env.BENCH_PRIOR ?? 0);

const server = await startServer(new URL("./turn.bench.ts", import.meta.url).pathname);
const { bub, home } = await createBenchBub(server.url, {
  prefix: "bub-fetch-ab-",
  memoryTape: true,
  env: { BUB_MAX_TOKENS: "1024" },
});
const scope = await bub.running();
const turn = async (i: number) => {
  const result = await bub.processInbound(
    { channel: "bench", chatId: PRIOR > 0 ? "s" : `c-${i}`, content: `turn ${i}` },
    { stream: true },
  );
  if (result.modelOutput !== TEXT.join("")) throw new Error(`unexpected ${result.modelOutput}`);
};
for (let i = 0; i < PRIOR; i++) await turn(i);
const bodies = await recordBodies(() => turn(-1));
await scope[Symbol.asyncDispose]();
rmSync(home, { recursive: true, force: true });

const url = `${server.url}/chat/completions`;
const headers = { authorization: "Bearer sk-bench", "content-type": "application/json" };
const body = bodies[1]!;
const cut = body.length >> 1;
const [head, tail] = [body.slice(0, cut), body.slice(cut)];
const bytes = new TextEncoder().encode(body);
// A body as Bub builds it: a head, a long session's cached history, a tail.
const keptFrom = Math.min(4000, body.length >> 2);
const keptTo = body.length - Math.min(12000, body.length >> 2);
const bodyHead = body.slice(0, keptFrom);
const keptString = body.slice(keptFrom, keptTo);
const bodyTail = body.slice(keptTo);
const keptBytes = new TextEncoder().encode(keptString);
const keptFlat = `${keptString} `.slice(0, -1);
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const decodedBody = decoder.decode(bytes);
const keptDecoded = decoder.decode(keptBytes);
function builtBytes(): Uint8Array<ArrayBuffer> {
  const h = encoder.encode(bodyHead);
  const t = encoder.encode(bodyTail);
  const out = new Uint8Array(h.length + keptBytes.length + t.length);
  out.set(h);
  out.set(keptBytes, h.length);
  out.set(t, h.length + keptBytes.length);
  return out;
}

interface Variant {
  signal?: boolean;
  timers?: boolean;
  release?: boolean;
  headers?: HeadersInit;
  read?: "text" | "iterate" | "many";
  body: () => string | Uint8Array<ArrayBuffer>;
}

async function call(v: Variant): Promise<void> {
  const controller = v.signal ? new AbortController() : undefined;
  const timer = v.timers ? setTimeout(() => {}, 600_000) : undefined;
  const response = await fetch(url, {
    method: "POST",
    headers: v.headers ?? headers,
    body: v.body(),
    signal: controller?.signal,
  });
  const decoder = new TextDecoder();
  let text = "";
  if (v.read === "iterate") {
    for await (const chunk of response.body!) text += decoder.decode(chunk, { stream: true });
  } else if (v.read === "many") {
    // Bun's reader extension: every chunk already queued, in one read.
    const reader = response.body!.getReader() as unknown as {
      readMany(): Promise<{ done: boolean; value: Uint8Array[] }>;
    };
    for (;;) {
      const { done, value } = await reader.readMany();
      for (const chunk of value ?? []) text += decoder.decode(chunk, { stream: true });
      if (done) break;
    }
  } else if (v.read === "text") {
    text = await response.text();
  } else {
    const reader = response.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    if (v.release) reader.releaseLock();
  }
  if (!text.includes("[DONE]")) throw new Error("no [DONE]");
  clearTimeout(timer);
}

const variants: Record<string, Variant> = {
  "flat string": { body: () => body },
  "string built per call": { body: () => `${head}${tail}` },
  "bytes": { body: () => bytes },
  "bytes built per call (head, kept bytes, tail)": { body: builtBytes },
  "text: kept bytes decoded per call": {
    body: () => `${bodyHead}${decoder.decode(keptBytes)}${bodyTail}`,
  },
  "text: whole body decoded once, reused": { body: () => decodedBody },
  "text: kept text decoded once, cached": { body: () => `${bodyHead}${keptDecoded}${bodyTail}` },
  "text: kept text cached": { body: () => `${bodyHead}${keptFlat}${bodyTail}` },
  "Blob of head, kept bytes, tail": {
    body: () => new Blob([bodyHead, keptBytes, bodyTail]) as unknown as string,
  },
  "flat + signal": { signal: true, body: () => body },
  "flat + timers": { timers: true, body: () => body },
  "flat, read by for await": { read: "iterate", body: () => body },
  ...("Bun" in globalThis
    ? { "flat, read by readMany() (Bun)": { read: "many", body: () => body } as Variant }
    : {}),
  "flat, read whole (response.text(), not streamed)": { read: "text", body: () => body },
  "flat + one Headers object": { headers: new Headers(headers), body: () => body },
  "flat + releaseLock": { release: true, body: () => body },
  "Bub today (built, signal, timers, release)": {
    signal: true,
    timers: true,
    release: true,
    body: () => `${head}${tail}`,
  },
};

async function round(v: Variant, n: number): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) await call(v);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / n;
}

const results = new Map<string, number[]>();
for (const v of Object.values(variants)) await round(v, 100);
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, v] of Object.entries(variants)) {
    const list = results.get(name) ?? [];
    list.push(await round(v, N));
    results.set(name, list);
  }
}
server.child.stdin!.end();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log(`body ${body.length} chars; CPU ms per call, median of ${ROUNDS} rounds of ${N}`);
for (const [name, list] of results) console.log(`${median(list).toFixed(3)}  ${name}`);
