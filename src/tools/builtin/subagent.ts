/**
 * The `subagent` tool (spec/builtin.md §3.8; seed-era structured result §14.6): runs a child turn
 * of the runtime agent on its own session and returns what it wrote.
 *
 * @module
 */
import { s as z } from "../../_internal/schema.ts";
import type { Prompt, TurnState } from "../../kernel/turn.ts";
import type { ToolRegistry } from "../registry.ts";
import { defineTool, type Tool } from "../tool.ts";
import { markKeywordOnly, sessionIdOf } from "./_context.ts";

/** The part of the runtime agent (`state._runtime_agent`) the subagent tool uses. */
export interface SubagentRunner {
  /** The registry the agent resolves tool names with. */
  readonly registry: ToolRegistry;
  /** Runs a turn and returns its events (`text` deltas, `error` events, ...). */
  runStream(options: {
    sessionId: string;
    prompt: Prompt;
    state: TurnState;
    model?: string | null;
    allowedTools?: Iterable<string> | null;
    allowedSkills?: Iterable<string> | null;
    signal?: AbortSignal;
  }): Promise<AsyncIterable<{ kind: string; data: Record<string, unknown> }>>;
}

function subagentParams() {
  return z.object({
    prompt: z.union([z.string(), z.array(z.record(z.string(), z.unknown()))]).describe(
      "The initial prompt for the sub-agent, as text or a list of content parts.",
    ),
    model: z.string().nullable().optional().describe("The model to use for the sub-agent."),
    session: z.string().default("temp").describe(
      "'inherit' to use the current session, 'temp' for a throwaway session, or a session id.",
    ),
    allowed_tools: z.array(z.string()).nullable().optional().describe(
      "Tool names the sub-agent may use; default: every tool except subagent.",
    ),
    allowed_skills: z.array(z.string()).nullable().optional().describe(
      "Skill names the sub-agent may use; default: every skill.",
    ),
  });
}

/** Arguments of {@link runSubagent} (the validated `subagent` arguments). */
export interface SubagentArgs {
  /** The child's prompt: text or content parts. */
  prompt: string | Record<string, unknown>[];
  /** A model override. */
  model?: string | null;
  /** `inherit`, `temp`, or a session id. */
  session: string;
  /** Tools the child may use (runtime or model-facing names); null or empty = all. */
  allowed_tools?: string[] | null;
  /** Skills the child may use; null = all. */
  allowed_skills?: string[] | null;
}

/** The seed-era structured result of `subagent`. */
export interface SubagentResult {
  /** The session the child ran in. */
  session_id: string;
  /** The concatenated text deltas. */
  output: string;
  /** The message of each `error` event (`unknown error` when it had none). */
  errors: string[];
}

function _tempSession(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(4));
  return `temp/${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

function _isRunner(value: unknown): value is SubagentRunner {
  const agent = value as Partial<SubagentRunner> | null | undefined;
  return typeof agent?.runStream === "function" && typeof agent.registry === "object";
}

/**
 * Runs a child turn of `state._runtime_agent`. The session is the parent's for `inherit`,
 * `temp/<8 hex>` for `temp`, else `args.session` verbatim; the child state is a shallow copy
 * with that `session_id`. The child may use `allowed_tools` (every tool when null or empty),
 * never `subagent` itself.
 *
 * @throws {Error} `no runtime agent found in tool context`
 * @throws {RangeError} `unknown tool name(s): ...`
 */
export async function runSubagent(
  args: SubagentArgs,
  state: TurnState,
  signal?: AbortSignal,
): Promise<SubagentResult> {
  const agent = state._runtime_agent;
  if (!_isRunner(agent)) throw new Error("no runtime agent found in tool context");
  const parent = sessionIdOf(state, "temp/unknown");
  const session = args.session === "inherit"
    ? parent
    : args.session === "temp"
    ? _tempSession()
    : args.session;
  const requested = args.allowed_tools && args.allowed_tools.length > 0 ? args.allowed_tools : null;
  const exclude = agent.registry.has("subagent") ? ["subagent"] : [];
  const allowedTools = agent.registry.resolveToolNames(requested, { exclude });
  const events = await agent.runStream({
    sessionId: session,
    prompt: args.prompt as Prompt,
    state: { ...state, session_id: session },
    model: args.model ?? null,
    allowedTools,
    allowedSkills: args.allowed_skills ?? null,
    signal,
  });
  const result: SubagentResult = { session_id: session, output: "", errors: [] };
  for await (const event of events) {
    if (event.kind === "text") result.output += String(event.data?.delta ?? "");
    else if (event.kind === "error") {
      const message = event.data?.message;
      result.errors.push(message ? String(message) : "unknown error");
    }
  }
  return result;
}

/** Renders a {@link SubagentResult}: the output followed by `[Error: <e>]` per error. */
export function renderSubagentResult(result: SubagentResult): string {
  return result.output + result.errors.map((error) => `[Error: ${error}]`).join("");
}

/** The `subagent` tool (keyword arguments only). */
export function subagentTool(): Tool {
  return markKeywordOnly(defineTool({
    name: "subagent",
    description: "Run a task with a sub-agent, optionally with another model, session, " +
      "and a restricted set of tools and skills.",
    parameters: subagentParams(),
    context: true,
    handler: async (args, ctx) =>
      renderSubagentResult(await runSubagent(args, ctx.state, ctx.signal)),
  }));
}
