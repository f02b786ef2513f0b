/**
 * What a line typed into the CLI channel means: one of the REPL's own commands (`,quit`,
 * `,exit`, `,thinking`, `,shell`), else the content sent to the session (an approval answer, or
 * the line itself, with a `,` prefix in shell mode). Also the completions of a comma command and,
 * for piped input, the wait for a line's turn.
 *
 * @module
 */
import type { CliTurnLifespan } from "./_turns.ts";

/** A command the REPL handles itself. */
export type ReplCommand = "quit" | "thinking" | "shell";

/** The REPL command a trimmed line is, or null for a line that goes to the session. */
export function replCommand(line: string): ReplCommand | null {
  if (line === ",quit" || line === ",exit") return "quit";
  if (line === ",thinking") return "thinking";
  if (line === ",shell") return "shell";
  return null;
}

/**
 * The content a trimmed line sends: `answer` (the comma command an approval answer stands
 * for) when set, else the line, prefixed with `,` in shell mode unless it is a comma command.
 */
export function lineContent(line: string, shellMode: boolean, answer: string | null): string {
  return answer ?? (shellMode && !line.startsWith(",") ? `,${line}` : line);
}

/** The comma commands (`toolNames()` and `thinking`) that complete `line`; none for other lines. */
export function completions(
  line: string,
  toolNames: (() => Iterable<string>) | undefined,
): string[] {
  if (!line.startsWith(",")) return [];
  const names = [...(toolNames?.() ?? []), "thinking"];
  const prefix = line.toLowerCase();
  return names.map((name) => `,${name}`).filter((item) => item.toLowerCase().startsWith(prefix));
}

/** Waits for a piped line's turn: its start (up to 10 s; a dropped line never starts), then its end. */
export async function waitForTurn(lifespan: CliTurnLifespan): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const started = await Promise.race([
    lifespan.started.then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 10_000))),
  ]);
  clearTimeout(timer);
  if (started) await lifespan.ended;
}
