/**
 * `BubHost`: what the builtin plugin, its commands and its channels need of the framework that
 * hosts them (a `BubFramework`), as a type, so none of them imports the framework class.
 *
 * @module
 */
import type { KernelFramework } from "../kernel/framework.ts";
import type { CliOutput, DemoModel } from "./cli_io.ts";
import type { Prompter } from "./onboard.ts";
import type { BuiltinRuntimeOptions } from "./runtime.ts";

/**
 * The framework the builtin plugin serves: the kernel plus the CLI's I/O and builtin options.
 *
 * @example
 * ```ts
 * import { BubFramework } from "@bub/core";
 * import type { BubHost } from "@bub/core/builtin";
 * const host: BubHost = new BubFramework();
 * console.log(host.builtinOptions);
 * ```
 */
export interface BubHost extends KernelFramework {
  /** Where builtin CLI commands write. */
  cliOutput: CliOutput;
  /** Stops the running CLI command; null: none. */
  cliSignal: AbortSignal | null;
  /** Starts the model `--demo` uses; null: `--demo` is not available. */
  demoModel: (() => Promise<DemoModel>) | null;
  /** Answers interactive questions (onboarding). */
  prompter: Prompter;
  /** Options the builtin plugin is created with. */
  readonly builtinOptions: BuiltinRuntimeOptions;
}
