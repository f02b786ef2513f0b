/**
 * The cluster's record of an interrupted inbox message and crash-safe resume's adoption event no
 * longer share a name: the cluster writes `cluster.turn_interrupted {message_id, ...}`, the
 * adoption `turn.interrupted {fork, step, calls}`. Tapes written before (the cluster's record
 * named `turn.interrupted` too) still resume: a `turn.interrupted` with a `message_id` and no
 * `fork` is not taken for an adoption, wherever it stands on the tape.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { INTERRUPTED_RESULT, planInterruptedTurn } from "../../../src/agent/interrupted_turn.ts";
import { TURN_INTERRUPTED } from "../../../src/channels/cluster/_turn_events.ts";
import { createEntry, type TapeEntry } from "../../../src/tape/entry.ts";
import { TURN_INTERRUPTED as ADOPTED } from "../../../src/tape/interrupted.ts";

const event = (name: string, data: Record<string, unknown>) => createEntry("event", { name, data });

/** A session tape after the adoption of fork `f1`, with the cluster's record `cluster` last. */
function tape(cluster: TapeEntry): TapeEntry[] {
  return [
    event("loop.start", { prompt: "go" }),
    event("loop.step.start", { step: 1, prompt: null }),
    createEntry("tool_call", {
      calls: [
        { id: "c1", type: "function", function: { name: "bash", arguments: "{}" } },
        { id: "c2", type: "function", function: { name: "bash", arguments: "{}" } },
      ],
    }),
    event("tool.start", { call_id: "c1", tool: "bash" }),
    event("tool.start", { call_id: "c2", tool: "bash" }),
    event("tool.end", { call_id: "c2", status: "ok", result: "done" }),
    event(ADOPTED, {
      fork: "f1",
      step: 1,
      calls: [
        { call_id: "c1", tool: "bash", state: "started" },
        { call_id: "c2", tool: "bash", state: "completed" },
      ],
    }),
    cluster,
  ].map((entry, i) => ({ ...entry, id: i + 1 }));
}

const record = { message_id: 7, owner: "host:1:a", epoch: 1, next_owner: "host:2:b" };
const expected = {
  fork: "f1",
  step: 1,
  calls: [
    { call_id: "c1", tool: "bash", state: "started" },
    { call_id: "c2", tool: "bash", state: "completed" },
  ],
  outcomes: [
    { kind: "result", result: INTERRUPTED_RESULT, ok: false },
    { kind: "result", result: "done", ok: true },
  ],
};

describe("the cluster's interrupted-message record", () => {
  test("has a name of its own, not the adoption event's", () => {
    assert.equal(TURN_INTERRUPTED, "cluster.turn_interrupted");
    assert.notEqual(TURN_INTERRUPTED, ADOPTED);
  });

  test("under its new name it does not hide the adoption from the resume plan", () => {
    assert.deepEqual(planInterruptedTurn(tape(event(TURN_INTERRUPTED, record))), expected);
  });

  test("an older cluster's turn.interrupted {message_id} after the adoption is not read as one", () => {
    assert.deepEqual(planInterruptedTurn(tape(event("turn.interrupted", record))), expected);
  });

  test("an older cluster's record alone is no turn to resume", () => {
    const entries = [event("turn.interrupted", record)].map((entry, i) => ({
      ...entry,
      id: i + 1,
    }));
    assert.equal(planInterruptedTurn(entries), null);
  });
});
