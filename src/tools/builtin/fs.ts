/**
 * The `fs.read`, `fs.write` and `fs.edit` tools (spec/builtin.md §6.7.4–§6.7.6, seed era §14.2):
 * text files through the turn's {@link Environment}.
 *
 * @module
 */
import { s as z } from "../../_internal/schema.ts";
import { environmentFromState } from "../../environment/from_state.ts";
import type { Environment } from "../../kernel/environment.ts";
import { defineTool, type Tool } from "../tool.ts";

/** Python `str.splitlines` boundaries: `\r\n`, `\n`, `\r`, VT, FF, FS, GS, RS, NEL, LS, PS. */
// deno-lint-ignore no-control-regex -- FS, GS and RS are line boundaries in Python's splitlines
const LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;
/** Replacement characters in the first 8,000 characters beyond this share mean "not UTF-8". */
const MAX_REPLACEMENT_SHARE = 0.1;

/**
 * Splits `text` into lines like Python's `str.splitlines()`: every universal line break
 * separates lines, and a final line break does not start an empty last line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitLines } from "./fs.ts";
 * assert.ok(JSON.stringify(splitLines("a\r\nb\rc\n")) === '["a","b","c"]');
 * ```
 */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(LINE_BREAK);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/**
 * Throws when decoded `text` of `path` looks binary: it contains a NUL character, or its first
 * 8,000 characters are more than 10% replacement characters (invalid UTF-8).
 */
function _assertText(text: string, path: string): void {
  if (text.includes("\u0000")) {
    throw new Error(
      `Cannot read ${path}: it is a binary file (contains NUL bytes), not UTF-8 text`,
    );
  }
  const head = text.slice(0, 8000);
  let bad = 0;
  for (const char of head) if (char === "\uFFFD") bad++;
  if (head.length > 0 && bad / head.length > MAX_REPLACEMENT_SHARE) {
    throw new Error(`Cannot read ${path}: it is not valid UTF-8 text (${bad} invalid sequences)`);
  }
}

/** Reads `path` (resolved through `env`) as text, rejecting binary content. */
async function _readText(env: Environment, resolved: string): Promise<string> {
  const text = await env.readText(resolved);
  _assertText(text, resolved);
  return text;
}

function readParams() {
  return z.object({
    path: z.string().describe("File path; relative paths resolve against the workspace."),
    offset: z.int().default(0).describe("First line to return (0-based)."),
    limit: z.int().nullable().optional().describe("Maximum number of lines to return."),
  });
}

function writeParams() {
  return z.object({
    path: z.string().describe("File path; relative paths resolve against the workspace."),
    content: z.string().describe("The complete new file content."),
  });
}

function editParams() {
  return z.object({
    path: z.string().describe("File path; relative paths resolve against the workspace."),
    old: z.string().describe("Exact text to replace (every occurrence after line `start`)."),
    new: z.string().describe("Replacement text."),
    start: z.int().default(0).describe("Line index where the search starts (0-based)."),
  });
}

/** The `fs.read` tool: lines `[offset, offset + limit)` of a UTF-8 text file, joined with `\n`. */
export function fsReadTool(): Tool {
  return defineTool({
    name: "fs.read",
    description:
      "Read a UTF-8 text file. Use offset and limit (in lines) to page through large files.",
    parameters: readParams(),
    context: true,
    handler: async ({ path, offset, limit }, ctx) => {
      const env = environmentFromState(ctx.state);
      const lines = splitLines(await _readText(env, env.resolvePath(path)));
      const start = Math.max(0, Math.min(offset, lines.length));
      const end = limit === null || limit === undefined
        ? lines.length
        : Math.min(lines.length, start + Math.max(0, limit));
      return lines.slice(start, end).join("\n");
    },
  });
}

/** The `fs.write` tool: writes (overwrites) a UTF-8 file, creating parent directories. */
export function fsWriteTool(): Tool {
  return defineTool({
    name: "fs.write",
    description: "Write content to a text file, replacing it and creating parent directories.",
    parameters: writeParams(),
    context: true,
    handler: async ({ path, content }, ctx) => {
      const env = environmentFromState(ctx.state);
      const resolved = env.resolvePath(path);
      await env.writeText(resolved, content);
      return `wrote: ${resolved}`;
    },
  });
}

/**
 * The `fs.edit` tool: replaces every occurrence of `old` in the lines from `start` on. The file
 * is rewritten with `\n` line endings and without a final newline; when `old` is absent the file
 * is left untouched and the tool fails.
 */
export function fsEditTool(): Tool {
  return defineTool({
    name: "fs.edit",
    description:
      "Edit a text file by replacing every occurrence of old with new, searching from line start.",
    parameters: editParams(),
    context: true,
    handler: async (args, ctx) => {
      const env = environmentFromState(ctx.state);
      const resolved = env.resolvePath(args.path);
      if (args.old === "") {
        throw new RangeError(`Cannot edit ${resolved}: old must be a non-empty string`);
      }
      const lines = splitLines(await _readText(env, resolved));
      const prefix = lines.slice(0, args.start).join("\n");
      const rest = lines.slice(args.start).join("\n");
      if (!rest.includes(args.old)) {
        throw new Error(`'${args.old}' not found in ${resolved} from line ${args.start}`);
      }
      const replaced = rest.replaceAll(args.old, () => args.new);
      await env.writeText(resolved, prefix ? `${prefix}\n${replaced}` : replaced);
      return `edited: ${resolved}`;
    },
  });
}

/** The three file tools, in catalogue order. */
export function fsTools(): Tool[] {
  return [fsReadTool(), fsWriteTool(), fsEditTool()];
}
