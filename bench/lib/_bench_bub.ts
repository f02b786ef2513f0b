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
import type { BubFramework } from "../../src/builtin/framework.ts";

/** Options of {@link createBenchBub}. */
export interface BenchBubOptions {
  /** Prefix of the temporary home folder. */
  prefix: string;
  /** Use an in-memory tape store. Default false. */
  memoryTape?: boolean;
  /** Extra builtin settings (env form). */
  env?: Record<string, string>;
}

/**
 * Creates the benched Bub (hooks loaded, not yet running) and its home folder; `url` null leaves
 * the model's API base unset (for benches whose turns never call the model).
 */
export async function createBenchBub(
  url: string | null,
  options: BenchBubOptions,
): Promise<{ bub: BubFramework; home: string }> {
  const { BubFramework } = await import("../../src/builtin/framework.ts");
  const { defineTool } = await import("../../src/tools/tool.ts");
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
        ...(url === null ? {} : { BUB_API_BASE: url }),
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
    const { InMemoryTapeStore } = await import("../../src/tape/memory_store.ts");
    bub.register({ name: "memory-tape", provideTapeStore: () => new InMemoryTapeStore() });
  }
  return { bub, home };
}
