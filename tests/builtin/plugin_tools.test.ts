/**
 * A plugin declares tools (`definePlugin({ name, tools: [defineTool(...)] })`): the model is
 * offered them and can call them, comma commands reach them, a later plugin's tool replaces an
 * earlier one of the same name, and a malformed declaration is refused at registration.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { BubFramework } from "../../src/builtin/framework.ts";
import { BubError } from "../../src/kernel/errors.ts";
import { definePlugin } from "../../src/kernel/plugin.ts";
import { mockReply } from "../../src/testing/mock_llm_server.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { turnFixture } from "../agent/_turn_fixture.ts";

function weatherTool(answer: string) {
  return defineTool({
    name: "weather.now",
    description: "The weather in a city",
    parameters: z.object({ city: z.string() }),
    handler: ({ city }) => `${answer} in ${city}`,
  });
}

function offeredToolNames(body: Record<string, unknown>): string[] {
  const tools = (body.tools ?? []) as { function?: { name?: string }; name?: string }[];
  return tools.map((tool) => tool.function?.name ?? tool.name ?? "");
}

describe("plugin tools", () => {
  test("a plugin's tool is offered to the model, called with validated arguments, and its result reaches the model", async () => {
    await using fx = await turnFixture({
      script: [mockReply.toolCall("weather_now", { city: "Oslo" }, { id: "c1" }), { text: "done" }],
      plugins: [definePlugin({ name: "weather", tools: [weatherTool("sunny")] })],
    });
    const result = await fx.turn("weather?");
    assert.equal(result.modelOutput, "done");
    const [first, second] = fx.bodies();
    assert.ok(offeredToolNames(first!).includes("weather_now"), JSON.stringify(first!.tools));
    assert.ok(offeredToolNames(first!).includes("bash"), "builtin tools stay offered");
    assert.match(JSON.stringify(second!.messages), /sunny in Oslo/);
  });

  test("a later plugin's tool replaces an earlier plugin's tool of the same name", async () => {
    await using fx = await turnFixture({
      script: [mockReply.toolCall("weather_now", { city: "Rome" }, { id: "c1" }), { text: "ok" }],
      plugins: [
        definePlugin({ name: "first", tools: [weatherTool("rainy")] }),
        definePlugin({ name: "second", tools: [weatherTool("hot")] }),
      ],
    });
    await fx.turn("weather?");
    const second = fx.bodies()[1]!;
    assert.match(JSON.stringify(second.messages), /hot in Rome/);
    assert.doesNotMatch(JSON.stringify(second.messages), /rainy/);
    const names = offeredToolNames(fx.bodies()[0]!).filter((name) => name === "weather_now");
    assert.equal(names.length, 1, "the tool is offered once");
  });

  test("a comma command runs a plugin's tool by name", async () => {
    await using fx = await turnFixture({
      plugins: [definePlugin({ name: "weather", tools: [weatherTool("foggy")] })],
    });
    const result = await fx.turn(",weather.now city=Lima");
    assert.match(result.modelOutput, /foggy in Lima/);
    assert.equal(fx.bodies().length, 0, "a comma command does not call the model");
  });

  test("a tools declaration that is not an array of defineTool() results is refused with invalid_input", () => {
    const bub = new BubFramework({ loadDotenv: false });
    for (
      const [tools, message] of [
        ["nope", /tools must be an array/],
        [[{ name: "x" }], /tools\[0\] is not a tool/],
      ] as const
    ) {
      assert.throws(
        () => bub.register({ name: `bad-${String(tools).length}`, tools }),
        (error: unknown) =>
          error instanceof BubError && error.kind === "invalid_input" &&
          message.test(error.message),
      );
    }
  });
});
