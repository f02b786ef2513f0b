/**
 * Comma commands (spec/builtin.md §8.1–§8.2): detecting operator input that starts with `,` and
 * parsing it into a command name and arguments with POSIX shell-word rules.
 *
 * @module
 */
import { BubError } from "../kernel/errors.ts";

/** A parsed comma command. */
export interface CommaCommand {
  /** The line after the comma, trimmed (recorded as `raw` on the `command` event). */
  raw: string;
  /** The first word: a tool's runtime name, or the start of a shell command. */
  name: string;
  /** The remaining words, unquoted. */
  tokens: string[];
}

/** Arguments of a comma command invoking a tool. */
export interface CommandArgs {
  /** Positional values, in order. */
  positional: string[];
  /** `key=value` values (split at the first `=`). */
  kwargs: Record<string, string>;
}

/** Options of {@link isCommaCommand}. */
export interface IsCommaCommandOptions {
  /** Trim the text first (agent, Telegram, CLI REPL); `false` for `build_prompt`. @default true */
  trim?: boolean;
}

/**
 * True when `text` is a comma command: it starts with `,` (after trimming, unless `trim` is false).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isCommaCommand } from "./comma_parse.ts";
 * assert.ok(isCommaCommand("  ,help") && !isCommaCommand("  ,help", { trim: false }));
 * ```
 */
export function isCommaCommand(text: string, options: IsCommaCommandOptions = {}): boolean {
  return (options.trim === false ? text : text.trim()).startsWith(",");
}

const WHITESPACE = new Set([" ", "\t", "\r", "\n"]);

/**
 * Splits `text` into words like a POSIX shell (Python `shlex.split`): whitespace separates words;
 * single quotes keep everything literally; double quotes keep everything except that a backslash
 * escapes `"` or `\`; outside quotes a backslash escapes any character; adjacent parts join
 * (`a'b'"c"` → `abc`); `''` is an empty word. No variables, globs or comments.
 *
 * @throws {BubError} (`invalid_input`) `No closing quotation` or `No escaped character`
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitShellWords } from "./comma_parse.ts";
 * const words = splitShellWords(`bash cmd='echo  a  b' note="say \\"hi\\""`);
 * assert.ok(JSON.stringify(words) === '["bash","cmd=echo  a  b","note=say \\"hi\\""]');
 * ```
 */
export function splitShellWords(text: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    if (WHITESPACE.has(char)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
      index += 1;
      continue;
    }
    inWord = true;
    if (char === "\\") {
      if (index + 1 >= text.length) throw new BubError("invalid_input", "No escaped character");
      word += text[index + 1];
      index += 2;
    } else if (char === "'") {
      const end = text.indexOf("'", index + 1);
      if (end < 0) throw new BubError("invalid_input", "No closing quotation");
      word += text.slice(index + 1, end);
      index = end + 1;
    } else if (char === '"') {
      index += 1;
      let closed = false;
      while (index < text.length) {
        const inner = text[index]!;
        if (inner === '"') {
          closed = true;
          index += 1;
          break;
        }
        if (inner === "\\") {
          if (index + 1 >= text.length) throw new BubError("invalid_input", "No escaped character");
          const next = text[index + 1]!;
          word += next === '"' || next === "\\" ? next : `\\${next}`;
          index += 2;
          continue;
        }
        word += inner;
        index += 1;
      }
      if (!closed) throw new BubError("invalid_input", "No closing quotation");
    } else {
      word += char;
      index += 1;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/**
 * Parses a comma command line (`,name args…`; the leading comma is optional): drops the comma,
 * trims, and splits the rest into words; the first word is the name.
 *
 * @throws {BubError} (`invalid_input`) `empty command`, `No closing quotation`, `No escaped character`
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseCommaCommand } from "./comma_parse.ts";
 * const command = parseCommaCommand(",tape.search query=error limit=5");
 * assert.ok(command.name === "tape.search" && command.tokens.length === 2);
 * assert.ok(command.raw === "tape.search query=error limit=5");
 * ```
 */
export function parseCommaCommand(line: string): CommaCommand {
  const trimmed = line.trim();
  const raw = (trimmed.startsWith(",") ? trimmed.slice(1) : trimmed).trim();
  if (raw === "") throw new BubError("invalid_input", "empty command");
  const [name = "", ...tokens] = splitShellWords(raw);
  return { raw, name, tokens };
}

/**
 * Sorts a tool command's words into positional and `key=value` arguments: a word containing `=`
 * is a keyword (split at the first `=`; later ones stay in the value), anything else positional.
 *
 * @throws {BubError} (`invalid_input`) `positional argument '<token>' cannot appear after keyword arguments`
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseCommandArgs } from "./comma_parse.ts";
 * const args = parseCommandArgs(["gh", "expr=a=b"]);
 * assert.ok(args.positional[0] === "gh" && args.kwargs.expr === "a=b");
 * ```
 */
export function parseCommandArgs(tokens: readonly string[]): CommandArgs {
  const positional: string[] = [];
  const kwargs: Record<string, string> = {};
  let sawKeyword = false;
  for (const token of tokens) {
    const at = token.indexOf("=");
    if (at >= 0) {
      Object.defineProperty(kwargs, token.slice(0, at), {
        value: token.slice(at + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      sawKeyword = true;
    } else if (sawKeyword) {
      throw new BubError(
        "invalid_input",
        `positional argument '${token}' cannot appear after keyword arguments`,
      );
    } else {
      positional.push(token);
    }
  }
  return { positional, kwargs };
}
