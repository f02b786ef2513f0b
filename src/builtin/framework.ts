/**
 * `BubFramework`: the kernel with the builtin plugin.
 *
 * @module
 */
import process from "node:process";
import { type FrameworkOptions, KernelFramework } from "../kernel/framework.ts";
import type { CliOutput, DemoModel } from "./cli_io.ts";
import type { BubHost } from "./host.ts";
import { LinePrompter, type Prompter } from "./onboard.ts";
import { createBuiltinPlugin } from "./plugin.ts";
import type { BuiltinRuntimeOptions } from "./runtime.ts";

export type { DemoModel } from "./cli_io.ts";

/**
 * Options of {@link BubFramework}.
 *
 * @example
 * ```ts
 * import { BubFramework, type BubFrameworkOptions } from "@bub/core";
 * const options: BubFrameworkOptions = { workspace: ".", builtin: { env: { BUB_MODEL: "openai:gpt-4o" } } };
 * const bub = new BubFramework(options);
 * bub.loadBuiltinHooks();
 * ```
 */
export interface BubFrameworkOptions extends FrameworkOptions {
  /** Overrides for the builtin plugin (e.g. a model client for tests). */
  builtin?: BuiltinRuntimeOptions;
}

/** Creates the builtin plugin for a `BubFramework` (the factory it hands the kernel). */
function builtinPluginOf(framework: KernelFramework): object {
  return createBuiltinPlugin(framework as BubHost);
}

/**
 * The framework users construct: the kernel plus the builtin plugin (agent, tools, tape,
 * channels, CLI) loaded by {@link BubFramework.loadBuiltinHooks}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BubFramework, contentOf, definePlugin } from "@bub/core";
 * const bub = new BubFramework();
 * bub.loadBuiltinHooks();
 * bub.register(definePlugin({ name: "echo", runModel: ({ prompt }) => `echo: ${prompt}` }));
 * const result = await bub.processInbound({ channel: "cli", chatId: "local", content: "hi" });
 * assert.ok(result.modelOutput === "echo: hi");
 * ```
 */
export class BubFramework extends KernelFramework implements BubHost {
  /** Where builtin CLI commands write. */
  cliOutput: CliOutput = {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
  };
  /** Stops the running CLI command (`main()` aborts it on SIGINT/SIGTERM/SIGHUP); null: none. */
  cliSignal: AbortSignal | null = null;
  /** Starts the model `--demo` uses (the CLI sets it); null: `--demo` is not available. */
  demoModel: (() => Promise<DemoModel>) | null = null;
  /** Answers interactive questions (onboarding); reads stdin by default. */
  prompter: Prompter = new LinePrompter();
  /** Options the builtin plugin is created with. */
  readonly builtinOptions: BuiltinRuntimeOptions;

  /**
   * Creates the object.
   *
   * @param options framework options, plus builtin overrides
   */
  constructor(options: BubFrameworkOptions = {}) {
    super({ ...options, builtinPlugin: options.builtinPlugin ?? builtinPluginOf });
    this.builtinOptions = options.builtin ?? {};
  }
}
