/**
 * The `spill.read` tool (spec/builtin.md §6.7.12): pages through a tool result that the spill
 * sidecar moved off the main tape. Its own results are never spilled.
 *
 * @module
 */
import { s as z } from "../../_internal/schema.ts";
import { readSpill } from "../../tape/spill_read.ts";
import { defineTool, type Tool } from "../tool.ts";
import { tapeOf } from "./_context.ts";

function spillReadParams() {
  return z.object({
    handle: z.string().describe("The handle from the spilled-output notice."),
    cursor: z.int().default(0).describe("Chunks to skip (from the end with from_end)."),
    count: z.int().default(1).describe("Chunks to read (at most 4)."),
    from_end: z.boolean().default(false).describe("Page backwards from the last chunk."),
  });
}

/**
 * The `spill.read` tool. Bad cursors and counts, a missing sidecar and unknown handles come back
 * as text (`` `cursor` must be >= 0. ``, `[no spilled tool result for handle '<h>']`, ...).
 */
export function spillReadTool(): Tool {
  return defineTool({
    name: "spill.read",
    description: "Read chunks of a spilled tool result by handle; follow next_cursor until " +
      "complete is true.",
    parameters: spillReadParams(),
    context: true,
    handler: ({ handle, cursor, count, from_end }, ctx) =>
      readSpill(tapeOf(ctx, "spill.read"), handle, { cursor, count, fromEnd: from_end }),
  });
}
