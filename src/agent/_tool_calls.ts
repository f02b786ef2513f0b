import { BubError } from "../kernel/errors.ts";
import { defineTool, NAMELESS_CALL_MESSAGE, type Tool } from "../tools/tool.ts";

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
