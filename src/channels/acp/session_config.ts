/**
 * What an editor can set per session and which commands it can offer: the modes (Bub's default,
 * or "ask" before every tool call), the config options
 * `model` (the configured model and its fallbacks) and `reasoning_effort`, read from the tape's
 * latest `model_switch` / `reasoning_effort_switch` events and set by running the `,model` /
 * `,reasoning_effort` commands (so a switch made in the editor is on the tape like one made in
 * any channel), and the comma commands as ACP slash commands (`/tape.info` runs `,tape.info`).
 *
 * @module
 */
import { latestEvents } from "../../tape/latest_events.ts";
import type { TapeStore } from "../../tape/store.ts";

/** The session modes: Bub's default, and one that asks before every tool call. */
export const MODES: readonly { id: string; name: string; description: string }[] = [
  {
    id: "default",
    name: "Default",
    description: "Tools run; calls matching the approvals: rules wait for your permission",
  },
  { id: "ask", name: "Ask", description: "Every tool call waits for your permission" },
];

/**
 * The models an editor may pick from.
 *
 * @example
 * ```ts
 * import type { AcpModels } from "@bub/core/channels";
 * const models: AcpModels = { default: "openai:gpt-4o", others: ["anthropic:claude-sonnet-4"] };
 * ```
 */
export interface AcpModels {
  /** The configured model (`model` setting). */
  default: string;
  /** Other models offered (the `fallback_models` setting). */
  others?: readonly string[];
}

const EFFORTS = ["low", "medium", "high"] as const;

/** The comma commands an editor offers as slash commands, with their descriptions and hints. */
export const ACP_COMMANDS: readonly { name: string; description: string; hint?: string }[] = [
  { name: "help", description: "Show the comma commands" },
  { name: "tape.info", description: "Entries, anchors and token usage of this session's tape" },
  { name: "tape.search", description: "Search this session's tape", hint: "query=<text>" },
  { name: "tape.anchors", description: "List the tape's anchors" },
  {
    name: "tape.handoff",
    description: "Start a fresh context after a summary",
    hint: "name=<phase> summary='<what was done>'",
  },
  { name: "skill", description: "Load a skill's instructions", hint: "name=<skill>" },
  { name: "model", description: "Switch this session's model", hint: "<provider:model>" },
  { name: "reasoning_effort", description: "Set the reasoning effort", hint: "low|medium|high" },
  { name: "approvals", description: "List this session's pending approvals" },
  { name: "approve", description: "Approve a held tool call", hint: "<id> [always]" },
  { name: "deny", description: "Deny a held tool call", hint: "<id> [reason]" },
];

/** The `available_commands_update` payload. */
export function availableCommands(): Record<string, unknown> {
  return {
    sessionUpdate: "available_commands_update",
    availableCommands: ACP_COMMANDS.map(({ name, description, hint }) => ({
      name,
      description,
      ...(hint ? { input: { hint } } : {}),
    })),
  };
}

/** A prompt typed as `/<command> ...` for one of {@link ACP_COMMANDS}, as Bub's `,<command> ...`. */
export function slashToComma(text: string): string {
  const match = /^\/([\w.]+)(\s|$)/.exec(text.trimStart());
  return match && ACP_COMMANDS.some((command) => command.name === match[1])
    ? `,${text.trimStart().slice(1)}`
    : text;
}

/** The current model and reasoning effort of tape `tape` (null: not switched). */
export async function sessionOverrides(
  store: TapeStore,
  tape: string,
): Promise<{ model: string | null; effort: string | null }> {
  let model: string | null = null;
  let effort: string | null = null;
  if ((await store.listTapes()).includes(tape)) {
    for (
      const entry of await latestEvents(store, tape, ["model_switch", "reasoning_effort_switch"])
    ) {
      const payload = entry.payload as { name?: unknown; data?: Record<string, unknown> };
      if (payload.name === "model_switch") model = String(payload.data?.model ?? "") || null;
      else effort = String(payload.data?.reasoning_effort ?? "") || null;
    }
  }
  return { model, effort };
}

/** The session's config options (the protocol's `SessionConfigOption[]`). */
export function configOptions(
  models: AcpModels,
  current: { model: string | null; effort: string | null },
): Record<string, unknown>[] {
  const model = current.model ?? models.default;
  const choices = [...new Set([models.default, ...(models.others ?? []), model])];
  const effort = current.effort ?? "default";
  const efforts: string[] = effort === "default" ? ["default", ...EFFORTS] : [...EFFORTS];
  if (!efforts.includes(effort)) efforts.push(effort);
  return [
    {
      id: "model",
      name: "Model",
      category: "model",
      type: "select",
      currentValue: model,
      options: choices.map((value) => ({ value, name: value })),
    },
    {
      id: "reasoning_effort",
      name: "Reasoning effort",
      category: "thought_level",
      type: "select",
      currentValue: effort,
      options: efforts.map((value) => ({
        value,
        name: value === "default" ? "provider default" : value,
      })),
    },
  ];
}

/**
 * The comma command that sets config option `id` to `value`, or an error message when the
 * option or value is not one the session offers.
 */
export function configCommand(
  options: readonly Record<string, unknown>[],
  id: string,
  value: unknown,
): { command: string } | { error: string } {
  const option = options.find((candidate) => candidate.id === id);
  if (!option) return { error: `Unknown config option ${JSON.stringify(id)}` };
  const values = (option.options as { value: string }[]).map((choice) => choice.value);
  if (typeof value !== "string" || !values.includes(value) || value === "default") {
    return { error: `${id} must be one of ${values.filter((v) => v !== "default").join(", ")}` };
  }
  return id === "model"
    ? { command: `,model model_id=${JSON.stringify(value)}` }
    : { command: `,reasoning_effort reasoning_effort=${value}` };
}
