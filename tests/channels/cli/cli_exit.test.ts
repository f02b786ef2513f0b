import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { openCli } from "./_fixtures.ts";

/** What a terminal shows on its last line once `written` was played: text after the last newline
 * or line-clearing `\r\x1b[2K`, with escape sequences removed. */
function lastLine(written: string): string {
  const tail = written.slice(Math.max(written.lastIndexOf("\n"), written.lastIndexOf("\r\x1b[2K")));
  // deno-lint-ignore no-control-regex
  return tail.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").replace(/[\r\n]/g, "");
}

describe("CLI channel exit on a terminal (builtin §10.4)", () => {
  test(",quit leaves the terminal on a clean line after Bye. (no input prompt drawn after it)", async () => {
    await using fx = await openCli({ terminal: true });
    fx.input.write(",quit\r");
    await fx.waitForStop();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const written = fx.text();
    assert.ok(written.includes("Bye."));
    assert.equal(lastLine(written), "", "the prompt is redrawn after Bye.");
  });

  test("stop() leaves the terminal on a clean line (no input prompt drawn after the REPL closed)", async () => {
    await using fx = await openCli({ terminal: true });
    await fx.waitForOutput("project > ");
    await fx.cli.stop();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(lastLine(fx.text()), "", "the prompt is left on the screen");
  });
});
