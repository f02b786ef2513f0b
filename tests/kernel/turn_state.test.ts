/**
 * `TurnState` at runtime: one open map per turn. A plugin typed with `definePlugin<S>()` is the
 * same object, registers like any plugin, and its keys from `loadState` reach every later stage
 * (and other plugins) of that turn only. The type-level side is tests/types/turn_state.ts.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { definePlugin, type Plugin } from "../../src/kernel/plugin.ts";
import type { TurnState } from "../../src/kernel/turn.ts";
import { kernelFixture } from "../_helpers/kernel.ts";

interface CounterState extends TurnState {
  "counter.turn"?: number;
  "counter.seen"?: string[];
}

describe("TurnState and definePlugin<S>()", () => {
  test("definePlugin<S> returns the plugin object itself", () => {
    const plugin = { name: "same", loadState: () => ({}) };
    assert.equal(definePlugin<CounterState>(plugin), plugin);
  });

  test("a stateful plugin's keys flow from loadState through buildPrompt, the model and saveState, fresh each turn", async () => {
    using fx = kernelFixture();
    let turns = 0;
    const saved: Array<Record<string, unknown>> = [];
    const counter: Plugin = definePlugin<CounterState>({
      name: "counter",
      loadState: () => ({ "counter.turn": ++turns }),
      buildPrompt: ({ state }) => {
        state["counter.seen"] = [...(state["counter.seen"] ?? []), "prompt"];
        return `turn ${state["counter.turn"] ?? 0}`;
      },
      runModel: ({ prompt, state }) => {
        state["counter.seen"]?.push("model");
        return `${String(prompt)} answered`;
      },
      saveState: ({ state }) => {
        saved.push({ turn: state["counter.turn"], seen: state["counter.seen"] });
      },
    });
    fx.framework.register(counter);
    const first = await fx.framework.processInbound({ channel: "t", chatId: "1", content: "a" });
    const second = await fx.framework.processInbound({ channel: "t", chatId: "1", content: "b" });
    assert.equal(first.modelOutput, "turn 1 answered");
    assert.equal(second.modelOutput, "turn 2 answered");
    assert.deepEqual(saved, [
      { turn: 1, seen: ["prompt", "model"] },
      { turn: 2, seen: ["prompt", "model"] },
    ]);
    assert.equal(first.state["counter.turn"], 1);
    assert.equal(typeof first.state._runtime_workspace, "string");
  });
});
