import { test } from "node:test";
import assert from "node:assert/strict";
import { newRunId } from "../../src/agent/run_id.ts";

test("run ids: UTC time to the millisecond, then a counter for ids of the same millisecond", () => {
  const at = new Date(Date.UTC(2026, 7, 21, 14, 51, 51, 123));
  assert.equal(newRunId(at), "run-20260821T145151123000Z");
  assert.equal(newRunId(new Date(at.getTime())), "run-20260821T145151123001Z");
  assert.equal(newRunId(at), "run-20260821T145151123002Z");
  const next = new Date(at.getTime() + 1);
  assert.equal(newRunId(next), "run-20260821T145151124000Z");
  assert.equal(newRunId(new Date(Date.UTC(2001, 0, 2, 3, 4, 5, 6))), "run-20010102T030405006000Z");
});

test("run ids of the current time are unique and well formed", () => {
  const ids = Array.from({ length: 500 }, () => newRunId());
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ids) assert.match(id, /^run-\d{8}T\d{12}Z$/);
  const now = Date.now();
  const text = new Date(now).toISOString().slice(0, 4);
  assert.ok(ids.at(-1)!.startsWith(`run-${text}`));
});
