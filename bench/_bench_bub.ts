/**
 * The Bub that the turn benches time: the builtin plugin against the mock server at `url` (model
 * `openai:bench`), a fresh home and workspace, and one `bench_noop` tool; with `memoryTape` the tape
 * store is an `InMemoryTapeStore` instead of the durable file store.
 *
 * @module
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BubFramework } from "../src/builtin/framework.ts";
import { TEXT, type Turn } from "./_turn_raw.ts";

/** Options of {@link createBenchBub}. */
export interface BenchBubOptions {
  /** Prefix of the temporary home folder. */
  prefix: string;
  /** Use an in-memory tape store. Default false. */
  memoryTape?: boolean;
  /** Extra builtin settings (env form). */
  env?: Record<string, string>;
}

/** Creates the benched Bub (hooks loaded, not yet running) and its home folder. */
export async function createBenchBub(
  url: string,
  options: BenchBubOptions,
): Promise<{ bub: BubFramework; home: string }> {
  const { BubFramework } = await import("../src/builtin/framework.ts");
  const { defineTool } = await import("../src/tools/tool.ts");
  const { z } = await import("zod");
  const home = mkdtempSync(join(tmpdir(), options.prefix));
  const bub = new BubFramework({
    home,
    configFile: join(home, "config.yml"),
    loadDotenv: false,
    workspace: home,
    builtin: {
      env: {
        BUB_MODEL: "openai:bench",
        BUB_API_KEY: "sk-bench",
        BUB_API_BASE: url,
        ...options.env,
      },
    },
  });
  bub.loadBuiltinHooks();
  // Straight into the builtin registry (as the benches' published figures were taken).
  const builtin = bub.pluginManager.get("builtin") as {
    runtime: { registry: { register(t: unknown): void } };
  };
  builtin.runtime.registry.register(defineTool({
    name: "bench_noop",
    description: "Does nothing",
    parameters: z.object({ value: z.number() }),
    handler: () => "ok",
  }));
  if (options.memoryTape) {
    const { InMemoryTapeStore } = await import("../src/tape/memory_store.ts");
    bub.register({ name: "memory-tape", provideTapeStore: () => new InMemoryTapeStore() });
  }
  return { bub, home };
}

/**
 * The fresh-session turn of the CPU benches (`turn_cpu.ts`, `turn_inproc.ts`): a bench Bub against
 * `url`, running, and `turn(i)` that runs turn `i` in chat `c-<i>` and checks the answer.
 */
export async function startFreshSessionTurns(
  url: string,
  prefix: string,
  memoryTape: boolean,
): Promise<{ bub: BubFramework; home: string; scope: AsyncDisposable; turn: Turn }> {
  const { bub, home } = await createBenchBub(url, {
    prefix,
    memoryTape,
    env: { BUB_MAX_TOKENS: "1024" },
  });
  const scope = await bub.running();
  const turn: Turn = async (i) => {
    const result = await bub.processInbound(
      { channel: "bench", chatId: `c-${i}`, content: `turn ${i}` },
      { stream: true },
    );
    if (result.modelOutput !== TEXT.join("")) throw new Error(`unexpected ${result.modelOutput}`);
  };
  return { bub, home, scope, turn };
}
