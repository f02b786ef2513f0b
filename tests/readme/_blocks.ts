/**
 * Reading fenced code blocks out of Markdown, and shell commands out of shell blocks.
 *
 * @module
 */

/** One fenced code block. */
export interface CodeBlock {
  /** The info string's first word (`ts`, `sh`, or empty). */
  lang: string;
  /** The block's text. */
  code: string;
  /** The 1-based line of the opening fence. */
  line: number;
}

/** The fenced (```) code blocks of `markdown`, in order. */
export function readmeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split("\n");
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i]!.startsWith("```"); i++) body.push(lines[i]!);
    blocks.push({ lang: open[1]!, code: body.join("\n") + "\n", line: start + 1 });
  }
  return blocks;
}

/** One command of a shell block (comments and blank lines dropped). */
export interface ShellCommand {
  /** The command without its trailing comment. */
  text: string;
  /** The 1-based README line. */
  line: number;
}

/** The commands of a shell block, one per line. */
export function shellCommands(block: CodeBlock): ShellCommand[] {
  const commands: ShellCommand[] = [];
  let open: ShellCommand | null = null; // a command continued with a trailing backslash
  block.code.split("\n").forEach((raw, index) => {
    const text = (open ? raw : raw.replace(/\s+#.*$/, "")).trim();
    if (open === null && (text === "" || text.startsWith("#"))) return;
    const continued = text.endsWith("\\");
    const part = continued ? text.slice(0, -1).trimEnd() : text;
    if (open) open.text += ` ${part}`;
    else commands.push(open = { text: part, line: block.line + 1 + index });
    if (!continued) open = null;
  });
  return commands;
}
