import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { StandardSchemaV1 } from "@standard-schema/spec";
import { z } from "zod";
import { BubError } from "../../src/kernel/errors.ts";
import {
  defineTool,
  modelTools,
  ToolArgumentsError,
  type ToolContext,
} from "../../src/tools/tool.ts";

/** A hand-written Standard Schema (no JSON Schema converter) accepting `{ n: number }`. */
const numberBox: StandardSchemaV1<unknown, { n: number }> = {
  "~standard": {
    version: 1,
    vendor: "test",
    validate(value) {
      const n = (value as { n?: unknown }).n;
      return typeof n === "number"
        ? { value: { n: n * 10 } }
        : { issues: [{ message: "n must be a number", path: ["n"] }] };
    },
  },
};

describe("defineTool", () => {
  test("zod parameters give the model-facing JSON Schema via z.toJSONSchema (input form, no $schema)", () => {
    const bash = defineTool({
      name: "bash",
      description: "Run a command",
      parameters: z.object({
        cmd: z.string(),
        cwd: z.string().nullable().optional(),
        timeout_seconds: z.int().default(30),
        background: z.boolean().default(false),
      }),
      handler: ({ cmd }) => cmd,
    });
    assert.deepEqual(bash.toSchema(), {
      type: "function",
      function: {
        name: "bash",
        description: "Run a command",
        parameters: {
          type: "object",
          properties: {
            cmd: { type: "string" },
            cwd: { type: ["string", "null"] },
            timeout_seconds: { default: 30, type: "integer" },
            background: { default: false, type: "boolean" },
          },
          required: ["cmd"],
        },
      },
    });
    assert.ok(Object.isFrozen(bash) && Object.isFrozen(bash.parameters));
  });

  test("the handler receives validated arguments with zod defaults applied", async () => {
    const tool = defineTool({
      name: "t",
      parameters: z.object({ a: z.number(), b: z.number().default(5) }),
      handler: (args) => args,
    });
    assert.deepEqual(await tool.run({ a: 1 }), { a: 1, b: 5 });
  });

  test("§6.3 lax mode: numeric strings become numbers and yes/no/on/off/1/0 become booleans", async () => {
    const tool = defineTool({
      name: "lax",
      parameters: z.object({
        count: z.int(),
        ratio: z.number(),
        flags: z.array(z.boolean()),
        maybe: z.int().nullable(),
        nested: z.object({ on: z.boolean() }),
        text: z.string(),
      }),
      handler: (args) => args,
    });
    const out = await tool.run({
      count: " 42 ",
      ratio: "0.5",
      flags: ["yes", "no", "on", "off", "1", "0", "TRUE", "false"],
      maybe: "7",
      nested: { on: "on" },
      text: "12",
    });
    assert.deepEqual(out, {
      count: 42,
      ratio: 0.5,
      flags: [true, false, true, false, true, false, true, false],
      maybe: 7,
      nested: { on: true },
      text: "12",
    });
  });

  test("arguments that still do not match throw ToolArgumentsError (invalid_input) with type, loc, msg, input", async () => {
    const tool = defineTool({
      name: "strict",
      parameters: z.object({ count: z.int(), path: z.string() }),
      handler: () => "never",
    });
    const error = await tool.run({ count: "many" }).then(() => null, (e: unknown) => e);
    assert.ok(error instanceof ToolArgumentsError);
    assert.ok(BubError.isInstance(error));
    assert.equal(error.kind, "invalid_input");
    assert.equal(error.message, "Tool 'strict' argument validation failed.");
    assert.deepEqual(error.errors.map(({ type, loc, input }) => ({ type, loc, input })), [
      { type: "number_type", loc: ["count"], input: "many" },
      { type: "missing", loc: ["path"], input: { count: "many" } },
    ]);
    assert.equal(error.errors[1]!.msg, "Field required");
    assert.deepEqual(error.details, { errors: [...error.errors] });
  });

  test("a Standard Schema paired with a JSON Schema validates with the schema and exposes the JSON Schema", async () => {
    const jsonSchema = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };
    const tool = defineTool({
      name: "box",
      parameters: { schema: numberBox, jsonSchema },
      handler: ({ n }) => n,
    });
    assert.deepEqual(tool.parameters, jsonSchema);
    assert.equal(await tool.run({ n: "4" }), 40);
    const error = await tool.run({ n: "x" }).then(() => null, (e: unknown) => e);
    assert.ok(error instanceof ToolArgumentsError);
    assert.deepEqual(error.errors, [{
      type: "value_error",
      loc: ["n"],
      msg: "n must be a number",
      input: "x",
    }]);
  });

  test("a Standard Schema without JSON Schema and without a pair is rejected at definition", () => {
    assert.throws(
      () => defineTool({ name: "bad", parameters: numberBox, handler: () => 1 }),
      (error: unknown) =>
        error instanceof BubError && error.kind === "invalid_input" &&
        /"test" without a JSON Schema converter .* needs parameters: \{ schema, jsonSchema \}/
          .test(error.message),
    );
    assert.throws(
      () => defineTool({ name: "bad", parameters: "x" as never, handler: () => 1 }),
      TypeError,
    );
  });

  test("a plain JSON Schema only checks that arguments are an object (after coercion)", async () => {
    const tool = defineTool({
      name: "plain",
      parameters: { type: "object", properties: { n: { type: "integer" } } },
      handler: (args) => args,
    });
    assert.deepEqual(await tool.run({ n: "3", extra: true }), { n: 3, extra: true });
    const error = await tool.run([] as never).then(() => null, (e: unknown) => e);
    assert.ok(error instanceof ToolArgumentsError);
    assert.equal(error.errors[0]!.type, "dict_type");
  });

  test("without parameters the schema is an object without properties", () => {
    const tool = defineTool({ name: "ping", handler: () => "pong" });
    assert.deepEqual(tool.parameters, { type: "object", properties: {} });
    assert.equal(tool.description, "");
    assert.equal(tool.agentUse, true);
    assert.equal(tool.context, false);
  });

  test("a context tool receives the context as its second argument; without one it fails", async () => {
    const state = { session_id: "s" };
    const tool = defineTool({
      name: "ctx",
      context: true,
      handler: (_args, context: ToolContext) => `${context.runId}:${context.state.session_id}`,
    });
    assert.equal(await tool.run({}, { tape: null, runId: "r1", state }), "r1:s");
    await assert.rejects(tool.run({}), {
      kind: "invalid_input",
      message: "Tool 'ctx' requires context but none was provided.",
    });
  });

  test("modelTools keeps agent-usable tools as renamed copies and leaves originals untouched", async () => {
    const read = defineTool({ name: "fs.read", handler: () => "content" });
    const quit = defineTool({ name: "quit", agentUse: false, handler: () => "bye" });
    const [copy, ...rest] = modelTools([read, quit]);
    assert.equal(rest.length, 0);
    assert.equal(copy!.name, "fs_read");
    assert.equal(copy!.runtimeName, "fs.read");
    assert.equal(copy!.toSchema().function.name, "fs_read");
    assert.equal(read.name, "fs.read");
    assert.equal(await copy!.run({}), "content");
  });
});
