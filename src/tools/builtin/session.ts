/**
 * The operator-only session tools (spec/builtin.md §6.7.16–§6.7.19): `help`, `quit`, `model` and
 * `reasoning_effort`. They are callable as comma commands but never offered to the model.
 *
 * @module
 */
import { s as z } from "../../_internal/schema.ts";
import type { ShellManager } from "../../environment/shell_manager.ts";
import { defineTool, type Tool } from "../tool.ts";
import { sessionIdOf, tapeOf } from "./_context.ts";

/** The text of the `help` command. */
export const HELP_TEXT: string = [
  "Commands start with ',' at the beginning of the line.",
  "Builtin commands, for example:",
  "  ,help",
  "  ,skill name=foo",
  "  ,tape.info",
  "  ,tape.search query=error",
  "  ,tape.handoff name=phase-1 summary='done'",
  "  ,tape.anchors",
  "  ,fs.read path=README.md",
  "  ,fs.write path=tmp.txt content='hello'",
  "  ,fs.edit path=tmp.txt old=hello new=world",
  "  ,bash command='sleep 5' background=true",
  "  ,bash.output shell_id=bash-1a2b3c4d",
  "  ,bash.kill shell_id=bash-1a2b3c4d",
  "  ,model openai:gpt-4o",
  "  ,reasoning_effort high",
  "  ,quit",
  "Any other command after ',' runs as a shell command through bash (e.g. ,git status).",
].join("\n");

/**
 * Ends a session's other work (the builtin plugin asks the channel router to quit it).
 *
 * @example
 * ```ts
 * import { ShellManager } from "@bub/core/environment";
 * import { createBuiltinTools, type QuitSession } from "@bub/core/tools";
 * const quitSession: QuitSession = (sessionId) => console.log(`closing ${sessionId}`);
 * const tools = createBuiltinTools({ shells: new ShellManager(), quitSession });
 * ```
 */
export type QuitSession = (sessionId: string) => void | Promise<void>;

/**
 * The `help` tool: {@link HELP_TEXT}, then a `Tools of MCP servers:` list of `extra()` (one
 * `  ,<name>(<params>): <description>` line each) when it has any.
 */
export function helpTool(extra?: () => Iterable<Tool>): Tool {
  return defineTool({
    name: "help",
    description: "Show the comma-command help.",
    agentUse: false,
    handler: () => {
      const lines = [...(extra?.() ?? [])].map((tool) => {
        const properties = tool.parameters.properties;
        const params = typeof properties === "object" && properties !== null
          ? Object.keys(properties).join(", ")
          : "";
        const head = `  ,${tool.name}(${params})`;
        return tool.description ? `${head}: ${tool.description.split("\n")[0]}` : head;
      });
      return lines.length ? `${HELP_TEXT}\nTools of MCP servers:\n${lines.join("\n")}` : HELP_TEXT;
    },
  });
}

/**
 * The `quit` tool: terminates the current session's shells (`session_id`, default
 * `temp/unknown`), then calls `quitSession`. Needs `_runtime_agent` in the state.
 */
export function quitTool(shells: ShellManager, quitSession?: QuitSession | null): Tool {
  return defineTool({
    name: "quit",
    description: "Stop the tasks of the current session. Do not use it in a normal workflow.",
    agentUse: false,
    context: true,
    handler: async (_args, ctx) => {
      if (!ctx.state._runtime_agent) throw new Error("no runtime agent found in tool context");
      const sessionId = sessionIdOf(ctx.state, "temp/unknown");
      await shells.terminateSession(sessionId);
      await quitSession?.(sessionId);
      return "Session tasks stopped.";
    },
  });
}

/** The `model` tool: sets `state.model` and records `model_switch {model}`. */
export function modelTool(): Tool {
  return defineTool({
    name: "model",
    description: "Switch the model of this session (applies from the next turn).",
    agentUse: false,
    parameters: z.object({
      model_id: z.string().describe("A provider:model id, e.g. openai:gpt-4o."),
    }),
    context: true,
    handler: async ({ model_id }, ctx) => {
      const model = model_id.trim();
      if (model === "") throw new RangeError("model_id must not be empty");
      await tapeOf(ctx, "model").appendEvent("model_switch", { model });
      ctx.state.model = model;
      return `Session model set to ${model} (applies from the next turn).`;
    },
  });
}

/** The `reasoning_effort` tool: sets `state.reasoning_effort` and records the switch. */
export function reasoningEffortTool(): Tool {
  return defineTool({
    name: "reasoning_effort",
    description: "Set the reasoning effort of this session (applies from the next turn).",
    agentUse: false,
    parameters: z.object({
      reasoning_effort: z.string().describe("The effort, e.g. low, medium, high."),
    }),
    context: true,
    handler: async ({ reasoning_effort }, ctx) => {
      const value = reasoning_effort.trim();
      if (value === "") throw new RangeError("reasoning_effort must not be empty");
      await tapeOf(ctx, "reasoning_effort").appendEvent("reasoning_effort_switch", {
        reasoning_effort: value,
      });
      ctx.state.reasoning_effort = value;
      return `Session reasoning effort set to ${value} (applies from the next turn).`;
    },
  });
}
