/**
 * How an interrupted turn goes on: `planInterruptedTurn` on hand-built tapes (each outcome
 * kind), and on the tape a real process left when it was SIGKILLed in the middle of a step's
 * tool calls, after `adoptInterruptedTurns`.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import process from "node:process";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { INTERRUPTED_RESULT, planInterruptedTurn } from "../../src/agent/interrupted_turn.ts";
import { createEntry, type TapeEntry } from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { adoptInterruptedTurns, describeFork } from "../../src/tape/interrupted.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { withDir } from "../tape/_helpers.ts";

const CHILD = fileURLToPath(new URL("../tape/_fork_child.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function numbered(entries: TapeEntry[]): TapeEntry[] {
  return entries.map((entry, i) => ({ ...entry, id: i + 1 }));
}

const call = (id: string, tool: string) => ({
  id,
  type: "function",
  function: { name: tool, arguments: "{}" },
});
const event = (name: string, data: Record<string, unknown>) => createEntry("event", { name, data });

/** A fork's entries: one step whose three calls are completed, started and not started. */
function forkEntries(): TapeEntry[] {
  return [
    event("loop.start", { prompt: "go" }),
    event("loop.step.start", { step: 2, prompt: null }),
    createEntry("tool_call", {
      calls: [call("a", "ok_tool"), call("b", "bash"), call("c", "fs.write")],
    }),
    event("tool.start", { call_id: "a", tool: "ok_tool" }),
    event("tool.end", { call_id: "a", status: "ok", result: { lines: 3 } }),
    event("tool.start", { call_id: "b", tool: "bash" }),
  ];
}

function adopted(fork: TapeEntry[]): TapeEntry[] {
  const { step, calls } = describeFork(fork);
  return numbered([
    createEntry("message", { role: "user", content: "earlier" }),
    ...fork,
    event("turn.interrupted", { fork: "f1", step, calls }),
  ]);
}

describe("planInterruptedTurn", () => {
  test("a completed call gives its tool.end result, a started one the interrupted result, a not-started one a run", () => {
    const plan = planInterruptedTurn(adopted(forkEntries()));
    assert.deepEqual(plan, {
      fork: "f1",
      step: 2,
      calls: [
        { call_id: "a", tool: "ok_tool", state: "completed" },
        { call_id: "b", tool: "bash", state: "started" },
        { call_id: "c", tool: "fs.write", state: "not_started" },
      ],
      outcomes: [
        { kind: "result", result: { lines: 3 }, ok: true },
        { kind: "result", result: INTERRUPTED_RESULT, ok: false },
        { kind: "run" },
      ],
    });
  });

  test("a started call of an idempotent tool runs again", () => {
    const plan = planInterruptedTurn(adopted(forkEntries()), {
      idempotent: (tool) => tool === "bash",
    });
    assert.deepEqual(plan?.outcomes[1], { kind: "run" });
  });

  test("a completed call that failed keeps ok false", () => {
    const fork = forkEntries();
    fork[4] = event("tool.end", { call_id: "a", status: "error", result: "boom" });
    assert.deepEqual(planInterruptedTurn(adopted(fork))?.outcomes[0], {
      kind: "result",
      result: "boom",
      ok: false,
    });
  });

  test("a step whose calls all have their tool_result, or a turn that had answered, has nothing to resume", () => {
    const withResult = [...forkEntries(), createEntry("tool_result", { results: [1, 2, 3] })];
    assert.equal(planInterruptedTurn(adopted(withResult)), null);
    const answered = [
      event("loop.start", { prompt: "hi" }),
      createEntry("message", { role: "user", content: "hi" }),
      createEntry("message", { role: "assistant", content: "hello" }),
      event("run", { status: "ok" }),
    ];
    assert.equal(planInterruptedTurn(adopted(answered)), null);
  });

  test("a turn resumed already, or a tape without an interruption, has nothing to resume", () => {
    const tape = adopted(forkEntries());
    assert.equal(planInterruptedTurn(tape.slice(0, -1)), null);
    assert.equal(planInterruptedTurn([...tape, event("turn.resumed", { fork: "f1" })]), null);
  });
});

describe("an interrupted step left by a SIGKILLed process", () => {
  test("adoption records the calls' states and the plan keeps the completed call's result", () =>
    withDir(async (dir) => {
      const tape = "ws__tools";
      const args = [CHILD, "file", dir, "-", tape, "tools", "0"];
      const child = spawn(process.execPath, "Deno" in globalThis ? ["run", "-A", ...args] : args, {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "inherit"],
      });
      const exited = new Promise((resolve) => child.on("exit", resolve));
      await new Promise<void>((resolve, reject) => {
        let out = "";
        child.stdout!.on("data", (chunk) => {
          out += chunk;
          if (out.includes("held\n")) resolve();
        });
        void exited.then(() => reject(new Error("child exited early")));
      });
      child.kill("SIGKILL");
      await exited;
      await using store = new FileTapeStore(dir);
      const [turn] = await adoptInterruptedTurns(store, tape);
      assert.deepEqual(turn?.calls, [
        { call_id: "c1", tool: "append_line", state: "completed" },
        { call_id: "c2", tool: "bash", state: "started" },
        { call_id: "c3", tool: "fs.write", state: "not_started" },
      ]);
      const entries = await new TapeQuery(tape, store).all();
      const plan = planInterruptedTurn(entries);
      assert.equal(plan?.step, 1);
      assert.deepEqual(plan?.outcomes, [
        { kind: "result", result: "line 1 added", ok: true },
        { kind: "result", result: INTERRUPTED_RESULT, ok: false },
        { kind: "run" },
      ]);
    }));
});
