/**
 * How a Bub tool call looks in an editor: its ACP kind, title, file locations and result
 * content, from the tool's name and arguments. Used both while a turn runs and when a session's
 * tape is replayed.
 *
 * @module
 */
import { isAbsolute, resolve } from "node:path";

/** The ACP kinds of a tool call (the protocol's `ToolKind`). */
export type AcpToolKind =
  | "read"
  | "edit"
  | "delete"
  | "move"
  | "search"
  | "execute"
  | "think"
  | "fetch"
  | "switch_mode"
  | "other";

/** The editor's view of one tool call. */
export interface ToolView {
  /** What kind of work the tool does. */
  kind: AcpToolKind;
  /** A one-line title. */
  title: string;
  /** Files the call touches (absolute paths). */
  locations: { path: string }[];
}

const KINDS: Record<string, AcpToolKind> = {
  "bash": "execute",
  "bash.output": "execute",
  "bash.kill": "execute",
  "fs.read": "read",
  "fs.write": "edit",
  "fs.edit": "edit",
  "web.fetch": "fetch",
  "tape.search": "search",
  "tape.info": "read",
  "tape.anchors": "read",
  "spill.read": "read",
  "skill": "read",
  "plan.update": "think",
};

function oneLine(text: string, max = 80): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}\u2026` : line;
}

/**
 * The view of a call of tool `name` with `args`; relative paths resolve against `workspace`.
 */
export function toolView(
  name: string,
  args: Record<string, unknown>,
  workspace: string,
): ToolView {
  // The model (and the tape) call a builtin tool `fs_write`, the hooks `fs.write`: both are
  // shown as the builtin's own name.
  const dotted = name.replaceAll("_", ".");
  if (!(name in KINDS) && dotted in KINDS) name = dotted;
  const kind = KINDS[name] ?? "other";
  const path = typeof args.path === "string" && args.path !== ""
    ? (isAbsolute(args.path) ? args.path : resolve(workspace, args.path))
    : null;
  const locations = path ? [{ path }] : [];
  let title = name;
  if (typeof args.command === "string") title = `${name}: ${oneLine(args.command)}`;
  else if (path) title = `${name} ${path}`;
  else if (typeof args.url === "string") title = `${name} ${oneLine(args.url)}`;
  else if (typeof args.name === "string") title = `${name} ${oneLine(args.name)}`;
  else if (typeof args.query === "string") title = `${name} ${oneLine(args.query)}`;
  return { kind, title, locations };
}

/** The text an editor shows for a tool's result (strings as they are, the rest as JSON). */
export function resultText(result: unknown): string {
  if (typeof result === "string") return result;
  if (result === undefined || result === null) return "";
  if (result instanceof Error) return result.message;
  try {
    return JSON.stringify(result, null, 2);
  } catch {
    return String(result);
  }
}

/** The arguments of a serialized call (`function.arguments`, a JSON string), or `{}`. */
export function parseArguments(text: unknown): Record<string, unknown> {
  if (typeof text !== "string") {
    return text !== null && typeof text === "object" ? text as Record<string, unknown> : {};
  }
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}
