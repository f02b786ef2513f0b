import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  isCommaCommand,
  parseCommaCommand,
  parseCommandArgs,
  splitShellWords,
} from "../../src/builtin/comma_parse.ts";
import { BubError } from "../../src/kernel/errors.ts";

function invalidInput(message: string): (error: unknown) => boolean {
  return (error) => {
    assert.ok(BubError.isInstance(error), `expected a BubError, got ${String(error)}`);
    assert.equal((error as BubError).kind, "invalid_input");
    assert.equal((error as BubError).message, message);
    return true;
  };
}

describe("comma command detection (§8.1)", () => {
  test("text whose trimmed form starts with a comma is a command", () => {
    assert.equal(isCommaCommand(",help"), true);
    assert.equal(isCommaCommand("  ,help  "), true);
    assert.equal(isCommaCommand("help, please"), false);
    assert.equal(isCommaCommand(""), false);
  });

  test("build_prompt detection does not trim", () => {
    assert.equal(isCommaCommand(" ,help", { trim: false }), false);
    assert.equal(isCommaCommand(",help", { trim: false }), true);
  });
});

describe("comma command parsing (§8.2)", () => {
  test("27: ',' alone fails with 'empty command'", () => {
    assert.throws(() => parseCommaCommand(","), invalidInput("empty command"));
    assert.throws(() => parseCommaCommand("  ,   "), invalidInput("empty command"));
  });

  test("28: ',tape.handoff name=a extra' fails: positional after keyword", () => {
    const command = parseCommaCommand(",tape.handoff name=a extra");
    assert.equal(command.name, "tape.handoff");
    assert.throws(
      () => parseCommandArgs(command.tokens),
      invalidInput("positional argument 'extra' cannot appear after keyword arguments"),
    );
  });

  test("29: quoting is shell-like: cmd='echo  a  b' is one value", () => {
    const command = parseCommaCommand(",bash cmd='echo  a  b'");
    assert.equal(command.name, "bash");
    assert.deepEqual(parseCommandArgs(command.tokens), {
      positional: [],
      kwargs: { cmd: "echo  a  b" },
    });
  });

  test("the raw line is the text after the comma, trimmed", () => {
    const command = parseCommaCommand("  , tape.search query=error limit=5 ");
    assert.equal(command.raw, "tape.search query=error limit=5");
    assert.deepEqual(command.tokens, ["query=error", "limit=5"]);
  });

  test("positional arguments before keywords are kept in order", () => {
    assert.deepEqual(parseCommandArgs(["openai:gpt-4o", "extra", "k=v"]), {
      positional: ["openai:gpt-4o", "extra"],
      kwargs: { k: "v" },
    });
  });

  test("a keyword splits at the first '=' and keeps later ones in the value", () => {
    const { kwargs } = parseCommandArgs(splitShellWords("expr=a=b=c empty= =lead"));
    assert.deepEqual(kwargs, { expr: "a=b=c", empty: "", "": "lead" });
  });

  test("a '__proto__' keyword is stored as a plain key", () => {
    const { kwargs } = parseCommandArgs(["__proto__=x"]);
    assert.equal(Object.getPrototypeOf(kwargs), Object.prototype);
    assert.deepEqual(Object.keys(kwargs), ["__proto__"]);
  });

  test("unbalanced quotes fail with 'No closing quotation'", () => {
    assert.throws(() => parseCommaCommand(",bash cmd='echo"), invalidInput("No closing quotation"));
    assert.throws(() => parseCommaCommand(',bash cmd="echo'), invalidInput("No closing quotation"));
  });

  test("a trailing backslash fails with 'No escaped character'", () => {
    assert.throws(() => splitShellWords("echo \\"), invalidInput("No escaped character"));
    assert.throws(() => splitShellWords('"abc\\'), invalidInput("No escaped character"));
  });
});

describe("POSIX shell words", () => {
  test("whitespace (spaces, tabs, newlines) separates words", () => {
    assert.deepEqual(splitShellWords("  a\tb\n c  "), ["a", "b", "c"]);
    assert.deepEqual(splitShellWords("   "), []);
  });

  test("single quotes keep backslashes and double quotes literally", () => {
    assert.deepEqual(splitShellWords(`'a\\n "b"'`), [`a\\n "b"`]);
  });

  test("in double quotes a backslash escapes only '\"' and '\\'", () => {
    assert.deepEqual(splitShellWords(`"say \\"hi\\" \\\\ \\$HOME"`), [`say "hi" \\ \\$HOME`]);
  });

  test("outside quotes a backslash escapes any character, including a space", () => {
    assert.deepEqual(splitShellWords("a\\ b \\'c"), ["a b", "'c"]);
  });

  test("adjacent quoted and bare parts join into one word; '' is an empty word", () => {
    assert.deepEqual(splitShellWords(`x='a b'"c"d '' ""`), ["x=a bcd", "", ""]);
  });

  test("'#' is not a comment", () => {
    assert.deepEqual(splitShellWords("echo #not-a-comment"), ["echo", "#not-a-comment"]);
  });
});
