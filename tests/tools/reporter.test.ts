import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configure, type LogRecord, reset } from "@logtape/logtape";
import { ToolExecutor } from "../../src/tools/executor.ts";
import {
  currentToolCallReporter,
  formatToolArguments,
  type ToolCallReporter,
  withToolCallReporter,
} from "../../src/tools/reporter.ts";
import { defineTool, type ToolContext } from "../../src/tools/tool.ts";

type Event = [string, ...unknown[]];

function recorder(events: Event[]): ToolCallReporter {
  return {
    start: (name, args) => void events.push(["start", name, args]),
    success: async (name, result, elapsed) => {
      await Promise.resolve();
      events.push(["success", name, result, typeof elapsed]);
    },
    error: (name, error, elapsed) =>
      void events.push(["error", name, (error as Error).message, typeof elapsed]),
  };
}

const ctxTool = defineTool({
  name: "fs.read",
  context: true,
  parameters: { type: "object", properties: { path: { type: "string" } } },
  handler: ({ path }: { path: string }, ctx: ToolContext) => `${path}@${ctx.runId}`,
});
const failing = defineTool({
  name: "bad",
  handler: () => {
    throw new Error("nope");
  },
});
const context: ToolContext = { tape: null, runId: "r", state: {} };

describe("tool-call reporter", () => {
  test("builtin 97: an installed reporter receives start/success/error, by runtime name, without the context", async () => {
    const events: Event[] = [];
    await withToolCallReporter(recorder(events), async () => {
      await new ToolExecutor().execute([{
        tool: ctxTool.toModelTool(),
        name: "fs_read",
        arguments: { path: "a" },
      }], {
        context,
      });
      await new ToolExecutor().execute([{ tool: failing, arguments: {} }]);
    });
    assert.deepEqual(events, [
      ["start", "fs.read", { path: "a" }],
      ["success", "fs.read", "a@r", "number"],
      ["start", "bad", {}],
      ["error", "bad", "nope", "number"],
    ]);
  });

  test("the reporter is scoped to the async context and can be uninstalled with null", async () => {
    const events: Event[] = [];
    const reporter = recorder(events);
    assert.equal(currentToolCallReporter(), null);
    await withToolCallReporter(reporter, async () => {
      await Promise.resolve();
      assert.equal(currentToolCallReporter(), reporter);
      await withToolCallReporter(null, () => failing.run({}).catch(() => {}));
    });
    assert.equal(currentToolCallReporter(), null);
    assert.deepEqual(events, []);
  });

  test("a throwing reporter does not fail the tool call", async () => {
    const reporter: ToolCallReporter = {
      start: () => {
        throw new Error("reporter broke");
      },
      success: () => Promise.reject(new Error("reporter broke")),
      error: () => {},
    };
    const result = await withToolCallReporter(reporter, () => ctxTool.run({ path: "p" }, context));
    assert.equal(result, "p@r");
  });

  test("without a reporter, calls are logged as tool.call.start / success / error under [bub, tools]", async () => {
    const records: LogRecord[] = [];
    await configure({
      sinks: { capture: (record: LogRecord) => void records.push(record) },
      loggers: [
        { category: ["bub", "tools"], sinks: ["capture"], lowestLevel: "debug" },
        { category: ["logtape", "meta"], sinks: [], lowestLevel: "warning" },
      ],
      reset: true,
    });
    try {
      await ctxTool.run({ path: "a" }, context);
      await failing.run({}).catch(() => {});
    } finally {
      await reset();
    }
    const lines = records.map((record) => [record.level, record.rawMessage, record.properties]);
    assert.equal(lines.length, 4);
    assert.deepEqual(lines[0], [
      "info",
      "tool.call.start name={name} {arguments}",
      { name: "fs.read", arguments: '{ path="a" }' },
    ]);
    assert.equal(lines[1]![1], "tool.call.success name={name} elapsed_time={elapsedTime}ms");
    assert.match(String((lines[1]![2] as Record<string, unknown>).elapsedTime), /^\d+\.\d{2}$/);
    assert.equal(lines[3]![0], "error");
    assert.equal(lines[3]![1], "tool.call.error name={name} elapsed_time={elapsedTime}ms: {error}");
    assert.equal(((lines[3]![2] as Record<string, unknown>).error as Error).message, "nope");
  });

  test("without a reporter, a cancelled call is logged as tool.call.cancelled at info, not as an error", async () => {
    const records: LogRecord[] = [];
    const stopped = defineTool({
      name: "stopped",
      parameters: { type: "object" },
      handler: () => {
        throw new DOMException("Stopped from the web console", "AbortError");
      },
    });
    await configure({
      sinks: { capture: (record: LogRecord) => void records.push(record) },
      loggers: [
        { category: ["bub", "tools"], sinks: ["capture"], lowestLevel: "debug" },
        { category: ["logtape", "meta"], sinks: [], lowestLevel: "warning" },
      ],
      reset: true,
    });
    try {
      await assert.rejects(stopped.run({}), { name: "AbortError" });
    } finally {
      await reset();
    }
    const ends = records.filter((record) =>
      record.rawMessage !== "tool.call.start name={name} {arguments}"
    );
    assert.deepEqual(ends.map((record) => [record.level, record.rawMessage]), [[
      "info",
      "tool.call.cancelled name={name} elapsed_time={elapsedTime}ms: {reason}",
    ]]);
    assert.equal(ends[0]!.properties.reason, "Stopped from the web console");
  });

  test("log arguments are JSON values cut to 100 chars with ... and the closing quote/bracket", () => {
    const long = "x".repeat(150);
    assert.equal(formatToolArguments({}), "{ }");
    assert.equal(formatToolArguments({ n: 1, flag: true }), "{ n=1, flag=true }");
    assert.equal(
      formatToolArguments({ s: long }),
      `{ s=${JSON.stringify(long).slice(0, 100)}..." }`,
    );
    const list = Array.from({ length: 60 }, (_, i) => i);
    assert.equal(
      formatToolArguments({ l: list }),
      `{ l=${JSON.stringify(list).slice(0, 100)}...] }`,
    );
  });
});
