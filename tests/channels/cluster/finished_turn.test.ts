/**
 * What a new owner reads from the session tape when it takes over a message whose turn started
 * and never completed: whether that turn ran to its end (its fork merged, its last step answered)
 * and with which answer. Only a turn merged after the dead owner's `cluster.turn_started` counts;
 * a turn whose last step asked for more (or that an adoption left mid-step) did not end.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { finishedTurnAnswer } from "../../../src/channels/cluster/_turn_events.ts";
import { createEntry, type TapeEntry } from "../../../src/tape/entry.ts";

const event = (name: string, data: Record<string, unknown>) => createEntry("event", { name, data });
const said = (content: unknown) => createEntry("message", { role: "assistant", content });
const started = (owner: string, epoch: number) =>
  event("cluster.turn_started", { message_id: 7, owner, epoch });
const call = { id: "c1", type: "function", function: { name: "bash", arguments: "{}" } };
const B = { owner: "B", epoch: 2 };

/** A turn that called a tool and answered, as its fork merges. */
const turn: TapeEntry[] = [
  event("loop.start", { prompt: "go" }),
  event("loop.step.start", { step: 1 }),
  createEntry("message", { role: "user", content: "go" }),
  createEntry("tool_call", { calls: [call] }),
  event("tool.start", { call_id: "c1", tool: "bash" }),
  event("tool.end", { call_id: "c1", status: "ok", result: "ok" }),
  createEntry("tool_result", { results: ["ok"] }),
  event("loop.step", { step: 1, status: "continue" }),
  event("loop.step.start", { step: 2 }),
  said([{ type: "text", text: "All " }, { type: "image_url" }, { type: "text", text: "done." }]),
  event("loop.step", { step: 2, status: "ok" }),
];

describe("the answer of a dead owner's turn that ran to its end", () => {
  test("a turn merged after the dead owner's start, before the new owner's, is answered", () => {
    assert.equal(finishedTurnAnswer([started("A", 1), ...turn, started("B", 2)], B), "All done.");
  });

  test("a turn still asking for more (its newest step continues) did not end", () => {
    assert.equal(finishedTurnAnswer([started("A", 1), ...turn.slice(0, 9)], B), null);
  });

  test("a turn merged before the dead owner's start (another message's, or bub run's) is not it", () => {
    assert.equal(finishedTurnAnswer([...turn, started("A", 1), started("B", 2)], B), null);
  });

  test("nothing merged since the last completion: no answer", () => {
    const entries = [...turn, event("cluster.turn_completed", { message_ids: [6] })];
    assert.equal(finishedTurnAnswer(entries, B), null);
  });

  test("a resume of an adopted fork that answered counts with the fork it resumed", () => {
    const entries = [
      started("A", 1),
      started("B", 2),
      event("cluster.turn_interrupted", { message_id: 7, owner: "A", next_owner: "B" }),
      ...turn.slice(0, 5),
      event("turn.interrupted", { fork: "f1", step: 1, calls: [] }),
      event("turn.resumed", { fork: "f1", step: 1 }),
      ...turn.slice(5),
    ];
    assert.equal(finishedTurnAnswer([...entries.slice(0, 8)], { owner: "C", epoch: 3 }), null);
    assert.equal(finishedTurnAnswer(entries, { owner: "C", epoch: 3 }), "All done.");
  });
});
