/**
 * Executing comma commands (spec/builtin.md §8.3): a registered runtime name calls that tool
 * directly (no executor, hooks or spill); anything else runs through the `bash` tool. Every
 * executed command is recorded as a `command` event.
 *
 * @module
 */
import { getLogger } from "../_internal/log.ts";
import { redactKnownSecrets } from "../_internal/secrets.ts";
import { BubError } from "../kernel/errors.ts";
import type { TurnState } from "../kernel/turn.ts";
import { isoNow } from "../_internal/utc_text.ts";
import { dumpsOrString } from "../_internal/json.ts";
import type { Tape } from "../tape/tape.ts";
import { isKeywordOnlyTool } from "../tools/builtin/mod.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { Tool, ToolContext } from "../tools/tool.ts";
import { parseCommaCommand, parseCommandArgs } from "./comma_parse.ts";

/**
 * The run id comma commands put in their tool context.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { COMMAND_RUN_ID } from "@bub/core/builtin";
 * assert.equal(COMMAND_RUN_ID, "run_command"); // the runId tools see for a ",tool" line
 * ```
 */
export const COMMAND_RUN_ID = "run_command";
/** The tool the shell fallback runs. */
export const SHELL_FALLBACK_TOOL = "bash";

/**
 * Options of {@link runCommaCommand}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineTool, InMemoryTapeStore, Tape } from "@bub/core";
 * import { runCommaCommand, type RunCommaCommandOptions } from "@bub/core/builtin";
 * import { ToolRegistry } from "@bub/core/tools";
 * const registry = new ToolRegistry([defineTool({ name: "greet", handler: ({ name }) => `hello ${name}` })]);
 * const options: RunCommaCommandOptions = {
 *   line: ",greet name=ada",
 *   tape: new Tape({ store: new InMemoryTapeStore() }).scoped("cli-local"),
 *   state: {},
 *   registry,
 * };
 * assert.equal(await runCommaCommand(options), "hello ada");
 * ```
 */
export interface RunCommaCommandOptions {
  /** The command line, with or without the leading comma. */
  line: string;
  /** The turn's tape (the fork); the `command` event goes here. */
  tape: Tape;
  /** The turn state. */
  state: TurnState;
  /** The tools; names are matched exactly against runtime names. */
  registry: ToolRegistry;
  /** Cancels the command (passed to the tool context). */
  signal?: AbortSignal;
}

/** A thrown value as the `output` of a failed command: `[kind] message` for a BubError. */
function _errorText(error: unknown): string {
  if (BubError.isInstance(error)) return String(error);
  if (error instanceof Error) return error.message;
  return String(error);
}

/** The result as text: strings unchanged, anything else as JSON (or its string form). */
function _resultText(result: unknown): string {
  return typeof result === "string" ? result : dumpsOrString(result ?? null);
}

/**
 * Maps positional values onto the tool's schema properties in order, then adds the keywords.
 *
 * @throws {TypeError} for positional values to a keyword-only tool, too many positional values,
 *   or a value given both positionally and by keyword
 */
export function bindCommandArguments(
  tool: Tool,
  positional: readonly string[],
  kwargs: Readonly<Record<string, string>>,
): Record<string, unknown> {
  if (positional.length > 0 && isKeywordOnlyTool(tool)) {
    throw new TypeError(
      `Tool '${tool.name}' accepts keyword arguments only, got positional argument '${
        positional[0]
      }'`,
    );
  }
  const properties = tool.parameters.properties;
  const names = typeof properties === "object" && properties !== null
    ? Object.keys(properties)
    : [];
  if (positional.length > names.length) {
    throw new TypeError(
      `Tool '${tool.name}' takes ${names.length} positional argument(s) but ${positional.length} ` +
        `were given`,
    );
  }
  const args: Record<string, unknown> = {};
  positional.forEach((value, index) => {
    args[names[index]!] = value;
  });
  for (const [key, value] of Object.entries(kwargs)) {
    if (Object.hasOwn(args, key)) {
      throw new TypeError(`Tool '${tool.name}' got multiple values for argument '${key}'`);
    }
    Object.defineProperty(args, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return args;
}

/**
 * Runs one comma command and returns its output. The line is parsed first (`empty command`,
 * `No closing quotation` fail before anything is recorded). A name that is exactly a registered
 * runtime name runs that tool with the string values (coerced by its schema) and the context
 * `{tape, runId: "run_command", state}`; anything else, model-facing aliases included, runs the
 * whole line through `bash` in the foreground with its default 30 s timeout. Success or failure,
 * `command {raw, name, status, elapsed_ms, output, date}` is appended to the tape; errors are
 * rethrown.
 *
 * @example Run a tool and a shell command
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore, Tape } from "@bub/core";
 * import { runCommaCommand } from "@bub/core/builtin";
 * import { ShellManager } from "@bub/core/environment";
 * import { registerBuiltinTools, ToolRegistry } from "@bub/core/tools";
 * const registry = new ToolRegistry();
 * registerBuiltinTools(registry, { shells: new ShellManager() });
 * const tape = new Tape({ store: new InMemoryTapeStore() }).scoped("cli-local");
 * await tape.ensureBootstrapAnchor();
 * const info = await runCommaCommand({ line: ",tape.info", tape, state: {}, registry });
 * const hello = await runCommaCommand({ line: ",echo hello", tape, state: {}, registry }); // not a tool: bash
 * assert.match(info, /entries/);
 * assert.equal(hello, "hello");
 * ```
 */
export async function runCommaCommand(options: RunCommaCommandOptions): Promise<string> {
  const { tape, state, registry } = options;
  const command = parseCommaCommand(options.line);
  const context: ToolContext = {
    tape,
    runId: COMMAND_RUN_ID,
    state,
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const started = performance.now();
  let status: "ok" | "error" = "ok";
  let output = "";
  let failure: { error: unknown } | null = null;
  try {
    const tool = registry.get(command.name);
    let result: unknown;
    if (tool) {
      const { positional, kwargs } = parseCommandArgs(command.tokens);
      result = await tool.run(bindCommandArguments(tool, positional, kwargs), context);
    } else {
      const shell = registry.get(SHELL_FALLBACK_TOOL);
      if (!shell) {
        throw new BubError(
          "not_found",
          `Cannot run ",${command.raw}": no tool is named "${command.name}" and the ` +
            `${SHELL_FALLBACK_TOOL} tool is not registered`,
        );
      }
      result = await shell.run({ command: command.raw }, context);
    }
    output = _resultText(result);
  } catch (error) {
    status = "error";
    output = redactKnownSecrets(_errorText(error));
    failure = { error };
  }
  const data = {
    raw: command.raw,
    name: command.name,
    status,
    elapsed_ms: Math.trunc(performance.now() - started),
    output,
    date: isoNow(),
  };
  if (failure) {
    await tape.appendEvent("command", data).catch((error: unknown) => {
      getLogger(["bub", "builtin"]).error("Cannot record failed command {name}: {error}", {
        name: command.name,
        error,
      });
    });
    throw failure.error;
  }
  await tape.appendEvent("command", data);
  return output;
}
