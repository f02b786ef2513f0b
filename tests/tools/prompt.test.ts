import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { renderToolsPrompt } from "../../src/tools/prompt.ts";
import { defineTool } from "../../src/tools/tool.ts";

const noop = (): string => "";

describe("renderToolsPrompt", () => {
  test("builtin 88: two tools, one without description, render exactly", () => {
    const one = defineTool({ name: "tests.prompt_one", description: "First tool", handler: noop });
    const two = defineTool({ name: "tests.prompt_two", handler: noop });
    assert.equal(
      renderToolsPrompt([one, two]),
      "<available_tools>\n- tests_prompt_one(): First tool\n- tests_prompt_two()\n</available_tools>",
    );
  });

  test("builtin 89: optional parameters render with ? in schema property order", () => {
    const tool = defineTool({
      name: "tests.prompt_signature",
      parameters: {
        type: "object",
        properties: { path: { type: "string" }, offset: { type: "integer" } },
        required: ["path"],
      },
      handler: noop,
    });
    assert.equal(
      renderToolsPrompt([tool]),
      "<available_tools>\n- tests_prompt_signature(path, offset?)\n</available_tools>",
    );
  });

  test("builtin 89: zod parameters with defaults are optional in the signature", async () => {
    const { z } = await import("zod");
    const tool = defineTool({
      name: "fs.read",
      description: "Read",
      parameters: z.object({
        path: z.string(),
        offset: z.int().default(0),
        limit: z.int().optional(),
      }),
      handler: noop,
    });
    assert.equal(
      renderToolsPrompt([tool]),
      "<available_tools>\n- fs_read(path, offset?, limit?): Read\n</available_tools>",
    );
  });

  test("builtin 90: an empty tool list renders as an empty string", () => {
    assert.equal(renderToolsPrompt([]), "");
  });

  test("operator-only tools (agentUse false) are left out", () => {
    const hidden = defineTool({ name: "quit", agentUse: false, handler: noop });
    assert.equal(renderToolsPrompt([hidden]), "");
  });
});
