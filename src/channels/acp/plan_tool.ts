/**
 * The plan an editor shows: a `plan.update` tool the model calls with its whole plan (each step's
 * text, status and priority) whenever the plan changes. The call is on the tape like any tool call,
 * so the plan survives a restart and replays with the session; the ACP server turns each call into
 * a `plan` update. Offered to the model only in `bub acp`.
 *
 * @module
 */
import { s as z } from "../../_internal/schema.ts";
import { BubError } from "../../kernel/errors.ts";
import { defineTool, type Tool } from "../../tools/tool.ts";

/** One step of a plan (the protocol's `PlanEntry`). */
export interface PlanEntry {
  /** What the step does. */
  content: string;
  /** `pending`, `in_progress` or `completed`. */
  status: "pending" | "in_progress" | "completed";
  /** `high`, `medium` or `low`. */
  priority: "high" | "medium" | "low";
}

const STATUSES = ["pending", "in_progress", "completed"] as const;
const PRIORITIES = ["high", "medium", "low"] as const;

/** The tool name as the hooks and the tape know it, and as the model calls it. */
export const PLAN_TOOL_NAMES: readonly string[] = ["plan.update", "plan_update"];

/**
 * The entries of a `plan.update` call's arguments; a bad status or priority is an error naming it.
 */
export function planEntries(args: Record<string, unknown>): PlanEntry[] {
  const entries = Array.isArray(args.entries) ? args.entries : [];
  return entries.map((raw, index) => {
    const entry = (raw ?? {}) as Record<string, unknown>;
    const status = String(entry.status ?? "pending");
    const priority = String(entry.priority ?? "medium");
    if (!(STATUSES as readonly string[]).includes(status)) {
      throw new BubError(
        "invalid_input",
        `plan entry ${index}: status must be pending, in_progress or completed, got ${status}`,
      );
    }
    if (!(PRIORITIES as readonly string[]).includes(priority)) {
      throw new BubError(
        "invalid_input",
        `plan entry ${index}: priority must be high, medium or low, got ${priority}`,
      );
    }
    return {
      content: String(entry.content ?? ""),
      status: status as PlanEntry["status"],
      priority: priority as PlanEntry["priority"],
    };
  });
}

/** The `plan.update` tool. */
export function planTool(): Tool {
  return defineTool({
    name: "plan.update",
    description:
      "Show your plan for this task in the editor: call it with the whole plan (every step) " +
      "when you make one and whenever a step starts or is done.",
    parameters: z.object({
      entries: z.array(z.object({
        content: z.string().describe("What the step does."),
        status: z.string().describe("pending, in_progress or completed."),
        priority: z.string().optional().describe("high, medium or low (default medium)."),
      })).describe("The whole plan, in order."),
    }),
    handler: (args) => {
      const entries = planEntries(args as Record<string, unknown>);
      const done = entries.filter((entry) => entry.status === "completed").length;
      return `Plan shown: ${entries.length} steps, ${done} completed.`;
    },
  });
}
