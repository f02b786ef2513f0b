/**
 * Panels and the other fixed pieces of CLI text: panel borders, the welcome panel, the bottom
 * toolbar line and the tape info the toolbar shows.
 *
 * @module
 */
import type { TextStyler } from "./_text_width.ts";

/** The three panel kinds and their border colours. */
export const PANEL_COLOURS: Readonly<Record<string, string>> = Object.freeze({
  Assistant: "blue",
  Command: "cyan",
  Error: "red",
});

/**
 * What the toolbar shows of the session tape.
 *
 * @example
 * ```ts
 * import type { CliTapeInfo } from "@bub/core/channels";
 * const tapeInfo = (): Promise<CliTapeInfo | null> =>
 *   Promise.resolve({ entries: 42, anchors: 2, lastAnchor: "session/start" });
 * ```
 */
export interface CliTapeInfo {
  /** Entries on the tape. */
  entries: number;
  /** Anchors on the tape. */
  anchors: number;
  /** The last anchor's name, or null. */
  lastAnchor: string | null;
}

/** {@link CliTapeInfo} under its first name. */
export type TapeInfo = CliTapeInfo;

const MAX_WIDTH = 100;

function panelWidth(columns: number): number {
  return Math.max(20, Math.min(columns, MAX_WIDTH));
}

/** The head line of a panel: `── <title> ─────…` in the panel colour. */
export function panelHead(title: string, style: TextStyler, columns: number): string {
  const colour = PANEL_COLOURS[title] ?? "white";
  const width = panelWidth(columns);
  const fill = Math.max(2, width - title.length - 4);
  return style(colour, "── ") + style(["bold", colour], title) +
    style(colour, " " + "─".repeat(fill));
}

/** The bottom border of a panel. */
export function panelBottom(title: string, style: TextStyler, columns: number): string {
  return style(PANEL_COLOURS[title] ?? "white", "─".repeat(panelWidth(columns)));
}

/** A whole panel around plain `content`. */
export function panel(title: string, content: string, style: TextStyler, columns: number): string {
  return [panelHead(title, style, columns), content, panelBottom(title, style, columns)].join("\n");
}

/** Fields of the welcome panel. */
export interface WelcomeInfo {
  /** The workspace path. */
  workspace: string;
  /** The default model, or "" when none is configured. */
  model: string;
  /** True when shell mode is toggled with Ctrl-X (a TTY); else with `,shell`. */
  tty: boolean;
}

/** The welcome panel printed when the REPL starts. */
export function welcomePanel(info: WelcomeInfo, style: TextStyler, columns: number): string {
  const width = panelWidth(columns);
  const title = " Bub ";
  const head = style("green", "──") + style(["bold", "green"], title) +
    style("green", "─".repeat(Math.max(2, width - title.length - 2)));
  const row = (label: string, value: string): string => `${style("dim", label.padEnd(11))}${value}`;
  const shell = info.tty ? "Ctrl-X toggles shell mode" : "type ,shell to toggle shell mode";
  return [
    head,
    row("workspace", info.workspace),
    row("model", info.model || "(not configured)"),
    row("commands", "start a line with ',' to run a command (,help lists them)"),
    row("shell", shell),
    row("exit", ",quit or Ctrl-D"),
    style("green", "─".repeat(width)),
  ].join("\n");
}

/** Fields of the bottom toolbar. */
export interface ToolbarInfo {
  /** The time shown (local HH:MM). */
  now: Date;
  /** True in shell mode. */
  shellMode: boolean;
  /** True when reasoning is shown expanded. */
  thinkingExpanded: boolean;
  /** The configured model. */
  model: string;
  /** Tape info, or null when unknown. */
  tape: TapeInfo | null;
}

/**
 * The toolbar line: `HH:MM  mode:<agent|shell>  thinking:<expand|collapse>  model:<m>
 * entries:<n> anchors:<n> last:<anchor or ->` (`-` for unknown values).
 */
export function formatToolbar(info: ToolbarInfo): string {
  const time = `${String(info.now.getHours()).padStart(2, "0")}:${
    String(info.now.getMinutes()).padStart(2, "0")
  }`;
  const tape = info.tape;
  const tapePart = [
    `entries:${tape ? tape.entries : "-"}`,
    `anchors:${tape ? tape.anchors : "-"}`,
    `last:${tape?.lastAnchor || "-"}`,
  ].join(" ");
  return [
    time,
    `mode:${info.shellMode ? "shell" : "agent"}`,
    `thinking:${info.thinkingExpanded ? "expand" : "collapse"}`,
    `model:${info.model || "-"}`,
    tapePart,
  ].join("  ");
}
