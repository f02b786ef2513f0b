import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { styleText } from "node:util";
import {
  MarkdownStream,
  renderMarkdown,
  renderTokens,
  visibleWidth,
} from "../../../src/channels/cli/markdown.ts";

const colour = (format: string | string[], text: string): string =>
  styleText(format as Parameters<typeof styleText>[0], text, { validateStream: false });

describe("terminal Markdown rendering", () => {
  test("renders headings, emphasis, lists, tasks, code, quotes, rules and tables as plain text", () => {
    const source = [
      "# Title &amp; more",
      "",
      "Some **bold**, *em*, `code` and [docs](https://example.com) \\* done",
      "",
      "- [x] shipped",
      "- open",
      "  - nested",
      "",
      "3. three",
      "4. four",
      "",
      "```py",
      "print(1)",
      "```",
      "",
      "> quoted",
      "",
      "| a | bb |",
      "|---|---:|",
      "| 1 | 2 |",
      "",
      "---",
    ].join("\n");
    assert.equal(
      renderMarkdown(source, { width: 10 }),
      [
        "# Title & more",
        "",
        "Some bold, em, code and docs (https://example.com) * done",
        "",
        "• [x] shipped",
        "• open",
        "  • nested",
        "",
        "3. three",
        "4. four",
        "",
        "  py",
        "  print(1)",
        "",
        "│ quoted",
        "",
        "a │ bb",
        "──┼───",
        "1 │  2",
        "",
        "──────────",
      ].join("\n"),
    );
  });

  test("applies styles through the given styler; visibleWidth ignores the escapes", () => {
    const out = renderMarkdown("## Hi **there**", { style: colour });
    assert.ok(out.includes("\x1b[1m"), out);
    // deno-lint-ignore no-control-regex
    assert.equal(out.replace(/\x1b\[[0-9;]*m/g, ""), "## Hi there");
    assert.equal(visibleWidth(out), "## Hi there".length);
  });

  test("MarkdownStream: a block becomes final once the next block starts", () => {
    const stream = new MarkdownStream();
    let step = stream.push("# Ti");
    assert.deepEqual([step.completed.length, step.pending[0]?.type], [0, "heading"]);
    step = stream.push("tle\n\nFirst para");
    assert.deepEqual(step.completed.map((t) => t.type), ["heading"]);
    assert.equal(renderTokens(step.pending), "First para");
    step = stream.push("graph\n\n```js\nlet a;\n");
    assert.deepEqual(step.completed.map((t) => t.type), ["paragraph"]);
    assert.equal(step.pending[0]?.type, "code");
    step = stream.push("```\n\n- a\n");
    assert.deepEqual(step.completed.map((t) => t.type), ["code"]);
    step = stream.push("- b");
    assert.deepEqual(step.completed, [], "a list keeps growing");
    assert.equal(renderTokens(stream.finish()), "• a\n• b");
    assert.equal(stream.source, "# Title\n\nFirst paragraph\n\n```js\nlet a;\n```\n\n- a\n- b");
  });

  test("MarkdownStream normalises CRLF so block offsets stay aligned", () => {
    const stream = new MarkdownStream();
    stream.push("one\r\n\r\n");
    const step = stream.push("two");
    assert.equal(renderTokens(step.completed), "one");
    assert.equal(renderTokens(stream.finish()), "two");
  });
});
