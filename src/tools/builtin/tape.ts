/**
 * The tape tools (spec/builtin.md §6.7.8–§6.7.11 and §6.7.13): `tape.info`, `tape.search`,
 * `tape.anchors`, `tape.handoff` and `tape.reset`, all on the turn's tape.
 *
 * @module
 */
import { s as z } from "../../_internal/schema.ts";
import { pyDumps } from "../../_internal/json.ts";
import { formatTapeInfo } from "../../tape/info.ts";
import type { Tape } from "../../tape/tape.ts";
import { defineTool, type Tool } from "../tool.ts";
import { markKeywordOnly, tapeOf } from "./_context.ts";

/** The marker that keeps `tape.search` from matching its own earlier results. */
export const TAPE_SEARCH_MARKER = "[tape.search]";

function searchParams() {
  return z.object({
    query: z.string().describe("The search query string."),
    limit: z.int().default(20).describe("Maximum number of search results to return."),
    start: z.string().nullable().optional().describe(
      "Optional start date to filter entries (ISO format).",
    ),
    end: z.string().nullable().optional().describe(
      "Optional end date to filter entries (ISO format).",
    ),
    kinds: z.array(z.string()).default(["message", "tool_result"]).describe(
      "Entry kinds to search: event, anchor, system, message, tool_call, tool_result, error.",
    ),
  });
}

/** Arguments of {@link searchTape} (the validated `tape.search` arguments). */
export interface TapeSearchArgs {
  /** The text query. */
  query: string;
  /** Maximum number of entries. */
  limit: number;
  /** Start date (ISO); with only one of `start` / `end` the date filter fails. */
  start?: string | null;
  /** End date (ISO). */
  end?: string | null;
  /** Entry kinds to search. */
  kinds: string[];
}

/**
 * Runs a `tape.search` and renders `[tape.search]: <kept> matches (<dropped> filtered)` followed
 * by one ASCII-escaped JSON line `{"date": ..., "content": <payload>}` per kept entry; lines that
 * contain `[tape.search]` are dropped. Giving only one of `start` / `end` fails the date filter.
 */
export async function searchTape(tape: Tape, args: TapeSearchArgs): Promise<string> {
  let query = tape.query().query(args.query).kinds(...args.kinds).limit(args.limit);
  if (args.start || args.end) query = query.betweenDates(args.start ?? "", args.end ?? "");
  const entries = await tape.search(query);
  const lines: string[] = [];
  for (const entry of entries) {
    const line = pyDumps({ date: entry.date, content: entry.payload }, {
      ensureAscii: true,
      fallback: String,
    });
    if (!line.includes(TAPE_SEARCH_MARKER)) lines.push(line);
  }
  const head = `${TAPE_SEARCH_MARKER}: ${lines.length} matches (${
    entries.length - lines.length
  } filtered)`;
  return head + lines.map((line) => `\n${line}`).join("");
}

/** The `tape.info` tool: the seven `name: value` lines of the tape's summary. */
export function tapeInfoTool(): Tool {
  return defineTool({
    name: "tape.info",
    description:
      "Get information about the current tape: entries, anchors, last anchor and token usage.",
    context: true,
    handler: async (_args, ctx) => formatTapeInfo(await tapeOf(ctx, "tape.info").info()),
  });
}

/** The `tape.search` tool (keyword arguments only). */
export function tapeSearchTool(): Tool {
  return markKeywordOnly(defineTool({
    name: "tape.search",
    description: "Search the current tape for entries matching the query, newest first.",
    parameters: searchParams(),
    context: true,
    handler: (args, ctx) => searchTape(tapeOf(ctx, "tape.search"), args),
  }));
}

/** The `tape.anchors` tool: `- <name>` for each of the last 20 anchors, or `(no anchors)`. */
export function tapeAnchorsTool(): Tool {
  return defineTool({
    name: "tape.anchors",
    description: "List the anchors of the current tape.",
    context: true,
    handler: async (_args, ctx) => {
      const anchors = await tapeOf(ctx, "tape.anchors").anchors();
      if (anchors.length === 0) return "(no anchors)";
      return anchors.map((anchor) => `- ${anchor.name}`).join("\n");
    },
  });
}

/** The `tape.handoff` tool: adds anchor `<name>` with state `{summary}`. */
export function tapeHandoffTool(): Tool {
  return defineTool({
    name: "tape.handoff",
    description:
      "Add a handoff anchor to the current tape; the context restarts after it with the summary.",
    parameters: z.object({
      name: z.string().min(1).default("handoff").describe("The anchor name."),
      summary: z.string().default("").describe("What the next phase needs to know."),
    }),
    context: true,
    handler: async ({ name, summary }, ctx) => {
      await tapeOf(ctx, "tape.handoff").handoff({ name, state: { summary } });
      return `anchor added: ${name}`;
    },
  });
}

/** The `tape.reset` tool: resets the tape (optionally archiving it first). */
export function tapeResetTool(): Tool {
  return defineTool({
    name: "tape.reset",
    description: "Reset the current tape, optionally archiving it first.",
    parameters: z.object({
      archive: z.boolean().default(false).describe("Write an archive copy before resetting."),
    }),
    context: true,
    handler: ({ archive }, ctx) => tapeOf(ctx, "tape.reset").reset({ archive }),
  });
}

/** The five tape tools, in catalogue order. */
export function tapeTools(): Tool[] {
  return [tapeInfoTool(), tapeSearchTool(), tapeResetTool(), tapeHandoffTool(), tapeAnchorsTool()];
}
