import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { BubFramework } from "../../src/builtin/framework.ts";
import { BuiltinRuntime } from "../../src/builtin/runtime.ts";

test("the shell runtime keeps at most tool_output_max_bytes of a command's output in memory", async () => {
  const runtime = new BuiltinRuntime(new BubFramework(), {
    env: { BUB_TOOL_OUTPUT_MAX_BYTES: "2048" },
  });
  await using _scope = runtime.shells.openScope();
  const output = await runtime.shells.run({ command: "head -c 100000 /dev/zero | tr '\\0' x" });
  const match = /the full output \(100,000 bytes\) is in (\S+)\]/.exec(output);
  assert.ok(match, output);
  try {
    assert.ok(output.length < 2048 + 300, `${output.length} characters`);
    assert.equal(statSync(match[1]!).size, 100_000);
  } finally {
    rmSync(dirname(match[1]!), { recursive: true, force: true });
  }
});
