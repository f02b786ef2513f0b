/**
 * A plugin tool's parameters can be any Standard Schema: zod 4, arktype and valibot (through
 * `toStandardJsonSchema`) are converted by their own library, zod 3 is paired with its JSON
 * Schema. Through a real turn against the mock model: the model is offered the converted JSON
 * Schema, a valid call reaches the handler with the validated arguments, and an invalid call goes
 * back to the model as the tool's error. A schema without a converter is refused with a typed error.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { toJsonSchema, toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { z } from "zod";
import { z as z3 } from "zod3";
import { z as z3v4 } from "zod3/v4";
import { BubError } from "../../src/kernel/errors.ts";
import { definePlugin } from "../../src/kernel/plugin.ts";
import { mockReply } from "../../src/testing/mock_llm_server.ts";
import { defineTool, type ToolParameters } from "../../src/tools/tool.ts";
import { turnFixture } from "../agent/_turn_fixture.ts";

interface Forecast {
  city: string;
  days: number;
}

/** The JSON Schema every library gives for `{ city: string, days: integer >= 1 }`. */
const FORECAST_JSON = {
  type: "object",
  properties: { city: { type: "string" }, days: { type: "integer", minimum: 1 } },
  required: ["city", "days"],
};

const valibotForecast = v.object({
  city: v.string(),
  days: v.pipe(v.number(), v.integer(), v.minValue(1)),
});

const zod3Forecast = z3.object({ city: z3.string(), days: z3.number().int().min(1) });
const zod3v4Forecast = z3v4.object({ city: z3v4.string(), days: z3v4.int().min(1) });

const CASES: Array<{ library: string; parameters: ToolParameters<Forecast>; json: object }> = [
  {
    library: "zod 4",
    parameters: z.object({ city: z.string(), days: z.int().min(1) }),
    json: FORECAST_JSON,
  },
  {
    // The zod 4 that zod 3.25 ships as "zod/v4" carries no converter on its schemas (Standard
    // JSON Schema came with zod 4.2), and Bub loads no zod of its own: its JSON Schema comes from
    // that copy's own z.toJSONSchema.
    library: "zod 4 from zod@3.25's zod/v4 + jsonSchema",
    parameters: {
      schema: zod3v4Forecast,
      jsonSchema: z3v4.toJSONSchema(zod3v4Forecast, { io: "input" }) as Record<string, unknown>,
    },
    json: FORECAST_JSON,
  },
  {
    library: "zod 3 + jsonSchema",
    parameters: { schema: zod3Forecast, jsonSchema: FORECAST_JSON },
    json: FORECAST_JSON,
  },
  {
    library: "valibot (toStandardJsonSchema)",
    parameters: toStandardJsonSchema(valibotForecast),
    json: FORECAST_JSON,
  },
  {
    library: "valibot + toJsonSchema",
    parameters: { schema: valibotForecast, jsonSchema: toJsonSchema(valibotForecast) },
    json: FORECAST_JSON,
  },
  {
    library: "arktype",
    parameters: type({ city: "string", days: "number.integer >= 1" }),
    json: FORECAST_JSON,
  },
];

function offeredParameters(body: Record<string, unknown>, name: string): unknown {
  const tools = (body.tools ?? []) as { function?: { name?: string; parameters?: unknown } }[];
  return tools.find((tool) => tool.function?.name === name)?.function?.parameters;
}

/** The content of the `tool` message answering `callId` in a request body. */
function toolMessage(body: Record<string, unknown>, callId: string): string {
  const messages = (body.messages ?? []) as {
    role?: string;
    tool_call_id?: string;
    content?: unknown;
  }[];
  const message = messages.find((m) => m.role === "tool" && m.tool_call_id === callId);
  assert.ok(message, `no tool message for ${callId} in ${JSON.stringify(messages)}`);
  return String(message.content);
}

describe("tools with any Standard Schema", () => {
  for (const { library, parameters, json } of CASES) {
    test(`${library}: offered with its JSON Schema, called with validated arguments, a bad call is the tool's error`, async () => {
      const seen: Forecast[] = [];
      const forecast = defineTool<Forecast>({
        name: "weather.forecast",
        description: "The forecast for a city",
        parameters,
        handler: (args) => {
          seen.push(args);
          return `sunny in ${args.city} for ${args.days} days`;
        },
      });
      await using fx = await turnFixture({
        script: [
          // "3" is coerced to 3 before validation (lax mode).
          mockReply.toolCall("weather_forecast", { city: "Oslo", days: "3" }, { id: "c1" }),
          mockReply.toolCall("weather_forecast", { city: "Oslo", days: 0 }, { id: "c2" }),
          { text: "done" },
        ],
        plugins: [definePlugin({ name: "weather", tools: [forecast] })],
      });
      const result = await fx.turn("weather?");
      assert.equal(result.modelOutput, "done");
      const [first, second, third] = fx.bodies();
      assert.deepEqual(offeredParameters(first!, "weather_forecast"), json);
      assert.deepEqual(
        seen,
        [{ city: "Oslo", days: 3 }],
        "only the valid call reaches the handler",
      );
      assert.equal(toolMessage(second!, "c1"), "sunny in Oslo for 3 days");
      const error = JSON.parse(toolMessage(third!, "c2")) as {
        kind: string;
        message: string;
        details: { errors: { loc: unknown[]; msg: string; input: unknown }[] };
      };
      assert.equal(error.kind, "invalid_input");
      assert.equal(error.message, "Tool 'weather_forecast' argument validation failed.");
      assert.deepEqual(error.details.errors.map(({ loc, input }) => ({ loc, input })), [
        { loc: ["days"], input: 0 },
      ]);
      assert.ok(error.details.errors[0]!.msg.length > 0, "the library's message is kept");
    });
  }

  test("a Standard Schema without a converter and without jsonSchema is refused with a typed error naming the library", () => {
    const refusals: Array<[string, unknown, RegExp]> = [
      ["zod 3", zod3Forecast, /zod 3 .*parameters: \{ schema, jsonSchema \}/],
      [
        "zod 4 before 4.2 (zod@3.25's zod/v4)",
        zod3v4Forecast,
        /zod 4 version carries no JSON Schema converter.*upgrade zod.*jsonSchema: z\.toJSONSchema/,
      ],
      ["valibot", valibotForecast, /toStandardJsonSchema\(schema\).*@valibot\/to-json-schema/],
      [
        "an unknown library",
        { "~standard": { version: 1, vendor: "acme", validate: (value: unknown) => ({ value }) } },
        /"acme" without a JSON Schema converter .*needs parameters: \{ schema, jsonSchema \}/,
      ],
    ];
    for (const [library, schema, message] of refusals) {
      assert.throws(
        () =>
          definePlugin({
            name: "weather",
            tools: [defineTool({
              name: "weather.forecast",
              parameters: schema as ToolParameters<Forecast>,
              handler: () => "",
            })],
          }),
        (error: unknown) =>
          error instanceof BubError && error.kind === "invalid_input" &&
          error.message.startsWith('Cannot define tool "weather.forecast": ') &&
          message.test(error.message),
        library,
      );
    }
  });

  test("a converter that fails is reported as a typed error that says what to pass", () => {
    // valibot's converter cannot express a custom check in JSON Schema.
    const odd = v.object({ n: v.custom<number>((n) => typeof n === "number" && n % 2 === 1) });
    assert.throws(
      () => defineTool({ name: "odd", parameters: toStandardJsonSchema(odd), handler: () => "" }),
      (error: unknown) =>
        error instanceof BubError && error.kind === "invalid_input" &&
        error.details?.vendor === "valibot" &&
        /the valibot JSON Schema converter failed \(.*"custom".*\); pass parameters: \{ schema, jsonSchema \}/
          .test(error.message),
    );
  });
});
