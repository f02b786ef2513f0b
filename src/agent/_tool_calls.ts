/**
 * A step's model tools: their schemas and names, built once per tool list and shared by every
 * call that offers the same tools ({@link toolListParts}; frozen, so the chat body reuses a
 * list's JSON by its identity); the calls the model made, turned into invocations of the step's
 * tools ({@link toolInvocations}: an unknown or blank name gets a failing stand-in); and their
 * execution, yielding `tool_start` / `tool_end` events while they run ({@link executeWithEvents}).
 *
 * @module
 */
import { PushQueue } from "../_internal/push_queue.ts";
import { BubError } from "../kernel/errors.ts";
import type { StreamEvent } from "../kernel/stream_events.ts";
import type {
  ExecuteToolsOptions,
  ToolExecution,
  ToolExecutor,
  ToolInvocation,
} from "../tools/executor.ts";
import { defineTool, NAMELESS_CALL_MESSAGE, type Tool } from "../tools/tool.ts";
import type { ChatTool } from "./model_client.ts";

/** A tool list's shared request parts. */
export interface ToolListParts {
  /** The tools' schemas (frozen array of frozen schemas), or null when there are no tools. */
  readonly schemas: readonly ChatTool[] | null;
  /** The tools' names (frozen). */
  readonly names: readonly string[];
}

interface Entry extends ToolListParts {
  /** The tools the parts were built from, to notice a list changed in place. */
  readonly tools: readonly Tool[];
}

const byList = new WeakMap<readonly Tool[], Entry>();
const shared = new WeakSet<readonly ChatTool[]>();
const NO_TOOLS: ToolListParts = Object.freeze({ schemas: null, names: Object.freeze([]) });

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function frozenSchema(tool: Tool): ChatTool {
  const schema = tool.toSchema();
  Object.freeze(schema.function);
  return Object.freeze(schema);
}

/** The schemas and names of `tools`: the same objects as last time for the same list. */
export function toolListParts(tools: readonly Tool[]): ToolListParts {
  if (tools.length === 0) return NO_TOOLS;
  const cached = byList.get(tools);
  if (cached !== undefined && sameItems(cached.tools, tools)) return cached;
  const schemas = Object.freeze(tools.map(frozenSchema));
  shared.add(schemas);
  const entry: Entry = {
    tools: [...tools],
    schemas,
    names: Object.freeze(tools.map((tool) => tool.name)),
  };
  byList.set(tools, entry);
  return entry;
}

/** True for a schema list made by {@link toolListParts} (it and its schemas never change). */
export function isSharedToolList(tools: readonly ChatTool[]): boolean {
  return shared.has(tools);
}

/** A tool call as recorded on the tape and sent back to the model (OpenAI chat shape). */
export type SerializedToolCall = {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
};

/**
 * Parses a tool call's arguments: `""` is `{}`; anything that is not a JSON object fails the step.
 *
 * @throws {BubError} `invalid_input` `Expected a function tool call with JSON object arguments.`
 */
export function parseToolArguments(raw: string): Record<string, unknown> {
  if (raw.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    value = undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new BubError(
      "invalid_input",
      "Expected a function tool call with JSON object arguments.",
      {
        arguments: raw.slice(0, 200),
      },
    );
  }
  return value as Record<string, unknown>;
}

/** A stand-in for a tool the model named but the step does not offer. */
export function unknownTool(name: string): Tool {
  if (name.trim() === "") return namelessTool();
  return defineTool({
    name,
    description: "",
    parameters: { type: "object", properties: {}, additionalProperties: true },
    handler: () => {
      throw new BubError("tool", `Unknown tool name: ${name}.`);
    },
  });
}

let nameless: Tool | null = null;

/** The stand-in for a call without a name (`defineTool` rejects a blank name). */
function namelessTool(): Tool {
  return nameless ??= defineTool({
    name: "(no name)",
    description: "",
    parameters: { type: "object", properties: {}, additionalProperties: true },
    handler: () => {
      throw new BubError("tool", NAMELESS_CALL_MESSAGE);
    },
  });
}

/** The tool calls as invocations of the step's tools (an unknown or blank name: a failing stand-in). */
export function toolInvocations(
  calls: readonly SerializedToolCall[],
  tools: readonly Tool[],
): { tool: Tool; arguments: Record<string, unknown>; name: string; id: string }[] {
  return calls.map((call) => {
    const args = parseToolArguments(call.function.arguments);
    const tool = tools.find((candidate) => candidate.name === call.function.name) ??
      unknownTool(call.function.name);
    return { tool, arguments: args, name: call.function.name, id: call.id };
  });
}

/**
 * Executes `invocations` on `executor`, yielding the tool events as they happen, and returns
 * the execution. When the consumer stops early, the execution keeps its own cancellation (the
 * step's signal) and its outcome is observed, so nothing rejects unhandled.
 */
export async function* executeWithEvents(
  executor: ToolExecutor,
  invocations: readonly ToolInvocation[],
  options: ExecuteToolsOptions,
): AsyncGenerator<StreamEvent, ToolExecution, undefined> {
  const events = new PushQueue<StreamEvent>();
  const execution = executor.execute(invocations, {
    ...options,
    observer: {
      start: (data) => events.push({ kind: "tool_start", data }),
      end: (data) => events.push({ kind: "tool_end", data }),
    },
  });
  const done = execution.then(
    () => {},
    () => {},
  ).finally(() => events.close());
  yield* events.drain();
  await done;
  return await execution;
}
