import assert from "node:assert/strict";
import { test } from "node:test";
import { ToolCall, ToolCallResult } from "../../src/kernel/agent_hooks.ts";
import { BubError } from "../../src/kernel/errors.ts";
import { InMemoryTapeStore } from "../../src/tape/memory_store.ts";
import { readSpill } from "../../src/tape/spill_read.ts";
import { spillAfterToolCall } from "../../src/tape/spill_hook.ts";
import {
  SPILL_CHUNK_BYTES,
  spillPreview,
  SpillStore,
  spillText,
  splitUtf8,
} from "../../src/tape/spill.ts";
import { Tape } from "../../src/tape/tape.ts";

function makeTape(threshold?: number): { tape: Tape; store: InMemoryTapeStore } {
  const store = new InMemoryTapeStore();
  const sidecars = threshold === null
    ? []
    : [new SpillStore(threshold === undefined ? {} : { threshold })];
  return { store, tape: new Tape({ store, sidecars }).scoped("a__b") };
}

async function runHook(
  tape: Tape | null,
  tool: string,
  init: { result?: unknown; error?: unknown },
): Promise<ToolCallResult> {
  const call = new ToolCall({ runId: "run-1", tool, arguments: {} });
  const result = new ToolCallResult({ runId: "run-1", tool, arguments: {}, ...init });
  await spillAfterToolCall({ call, result, state: tape ? { _runtime_tape: tape } : {} });
  return result;
}

function handleOf(text: string): string {
  return /handle: ([0-9a-f]{32})\]/.exec(text)![1]!;
}

function contentOf(page: string): string {
  return page.slice(page.indexOf("content:\n") + "content:\n".length);
}

test("a 20,000-char result with default settings is replaced by a reference shorter than 2,000 chars with the handle, and a context-excluded spill.write is recorded", async () => {
  const { tape, store } = makeTape();
  const original = "abcdefghij".repeat(2_000);
  const result = await runHook(tape, "bash", { result: original });
  const text = result.result as string;
  assert.ok(text.length < 2_000);
  const handle = handleOf(text);
  assert.ok(
    text.startsWith(
      `[tool output spilled: 20,000 bytes in 2 chunks; handle: ${handle}]\n[read with: spill_read(handle='${handle}', cursor=0, count=1, from_end=False)]\n`,
    ),
  );
  const [event] = store.read("a__b")!;
  assert.deepEqual(event?.payload, {
    name: "spill.write",
    data: { status: "ok", handle, bytes: 20_000, chunks: 2, tool: "bash" },
  });
  assert.deepEqual(event?.meta, { run_id: "run-1", context: false });
  assert.deepEqual(await tape.readMessages().catch(() => "no anchors"), "no anchors");
  const sidecar = store.read("a__b__sidecar__spill")!;
  assert.deepEqual(sidecar.map((e) => e.kind), [
    "anchor",
    "tool_result",
    "anchor",
    "tool_result",
    "anchor",
    "event",
  ]);
  assert.deepEqual(sidecar[5]?.payload, {
    name: "spill.manifest",
    data: { handle, chunks: 2, bytes: 20_000, chars: 20_000, lines: 1, tool: "bash" },
  });
  assert.deepEqual(sidecar[3]?.meta, { spill_handle: handle, spill_chunk: 1 });
});

test("with threshold 100 a short result is untouched; with threshold 0 nothing is spilled", async () => {
  const small = makeTape(100);
  assert.equal(
    (await runHook(small.tape, "bash", { result: "x".repeat(399) })).result,
    "x".repeat(399),
  );
  assert.match(
    (await runHook(small.tape, "bash", { result: "x".repeat(400) })).result as string,
    /^\[tool output spilled: 400 bytes in 1 chunks/,
  );
  const off = makeTape(0);
  assert.equal(
    (await runHook(off.tape, "bash", { result: "x".repeat(100_000) })).result,
    "x".repeat(100_000),
  );
  assert.equal(off.store.read("a__b"), null);
  assert.equal(
    await readSpill(off.tape, "missing"),
    "[no spilled tool result for handle 'missing']",
  );
});

test("paging forward with count=2 until complete: true reconstructs a multi-byte (emoji) result exactly", async () => {
  const { tape } = makeTape();
  const original = Array.from(
    { length: 30_000 },
    (_, i) => (i % 7 === 0 ? "😀" : i % 5 === 0 ? "é\n" : "a"),
  ).join("");
  const handle = handleOf((await spillText(tape, original, { tool: "bash" }))!);
  let cursor = 0;
  let rebuilt = "";
  for (let guard = 0; guard < 10; guard++) {
    const page = await readSpill(tape, handle, { cursor, count: 2 });
    rebuilt += contentOf(page);
    cursor = Number(/next_cursor: (\d+)/.exec(page)![1]);
    if (page.includes("complete: true")) break;
  }
  assert.equal(rebuilt, original);
  const bytes = new TextEncoder().encode(original);
  assert.ok(splitUtf8(bytes).every((c) => c.length <= SPILL_CHUNK_BYTES));
  assert.match(
    await readSpill(tape, handle, { cursor: 99 }),
    /chunks: none\nnext_cursor: \d+\ncomplete: true\ncontent:\n$/,
  );
});

test("from_end=true returns the tail chunk first (content ends with the original's end)", async () => {
  const { tape } = makeTape();
  const original = "start-" + "x".repeat(40_000) + "-the-end";
  const handle = handleOf((await spillText(tape, original, { tool: "bash" }))!);
  const page = await readSpill(tape, handle, { fromEnd: true });
  assert.ok(contentOf(page).endsWith("-the-end"));
  assert.match(
    page,
    /^\[spilled tool result: 40,014 bytes, 3 chunks\]\nchunks: 2-2\nnext_cursor: 1\ncomplete: false\n/,
  );
  const rest = await readSpill(tape, handle, { fromEnd: true, cursor: 1, count: 2 });
  assert.match(rest, /chunks: 0-1\nnext_cursor: 3\ncomplete: true/);
  assert.ok(contentOf(rest).startsWith("start-"));
});

test("count above 4 is capped at 4 chunks", async () => {
  const { tape } = makeTape();
  const handle = handleOf(
    (await spillText(tape, "y".repeat(SPILL_CHUNK_BYTES * 6), { tool: "bash" }))!,
  );
  const page = await readSpill(tape, handle, { count: 10 });
  assert.match(page, /chunks: 0-3\nnext_cursor: 4\ncomplete: false/);
  assert.equal(contentOf(page).length, SPILL_CHUNK_BYTES * 4);
});

test("cursor=-1 returns `cursor` must be >= 0.; count=0 returns `count` must be >= 1.; unmounted sidecar is unavailable", async () => {
  const { tape } = makeTape();
  assert.equal(await readSpill(tape, "h", { cursor: -1 }), "`cursor` must be >= 0.");
  assert.equal(await readSpill(tape, "h", { count: 0 }), "`count` must be >= 1.");
  const bare = new Tape({ store: new InMemoryTapeStore() }).scoped("a__b");
  assert.equal(await readSpill(bare, "h"), "spill sidecar unavailable in this context.");
});

test("an unknown handle returns [no spilled tool result for handle 'missing']", async () => {
  const { tape } = makeTape();
  await spillText(tape, "z".repeat(20_000), { tool: "bash" });
  assert.equal(await readSpill(tape, "missing"), "[no spilled tool result for handle 'missing']");
});

test("a missing or invalid chunk is reported as an incomplete spilled result", async () => {
  const { tape, store } = makeTape();
  const handle = handleOf((await spillText(tape, "q".repeat(40_000), { tool: "bash" }))!);
  const sidecar = store.read("a__b__sidecar__spill")!;
  const broken = new InMemoryTapeStore();
  for (const entry of sidecar.filter((e) => e.payload.name !== `spill/${handle}/chunk/1`)) {
    await broken.append(
      "a__b__sidecar__spill",
      entry.meta.spill_chunk === 2
        ? { ...entry, meta: { spill_handle: handle, spill_chunk: 7 } }
        : entry,
    );
  }
  const view = new Tape({ store: broken, sidecars: [new SpillStore()] }).scoped("a__b");
  assert.equal(
    await readSpill(view, handle, { cursor: 1 }),
    `[incomplete spilled tool result: missing chunk 1 for handle '${handle}']`,
  );
  assert.equal(
    await readSpill(view, handle, { cursor: 0, count: 3 }),
    `[incomplete spilled tool result: invalid chunk 2 for handle '${handle}']`,
  );
});

test("content spilled inside a discarded (temp/) fork is unreadable afterwards; a merged one stays readable", async () => {
  const { tape } = makeTape();
  let handle = "";
  {
    await using fork = tape.forkTape(false);
    handle = handleOf(
      (await runHook(fork, "bash", { result: "w".repeat(20_000) })).result as string,
    );
    assert.match(await readSpill(fork, handle), /complete: false/);
  }
  assert.equal(await readSpill(tape, handle), `[no spilled tool result for handle '${handle}']`);
  {
    await using fork = tape.forkTape(true);
    handle = handleOf(
      (await runHook(fork, "bash", { result: "w".repeat(20_000) })).result as string,
    );
  }
  assert.match(await readSpill(tape, handle), /^\[spilled tool result: 20,000 bytes, 2 chunks\]/);
});

test("the preview keeps 300 leading and 300 trailing chars with ...[<n> chars omitted]... between", () => {
  const text = "H".repeat(300) + "m".repeat(1_234) + "T".repeat(300);
  assert.equal(
    spillPreview(text),
    `${"H".repeat(300)}\n...[1,234 chars omitted]...\n${"T".repeat(300)}`,
  );
  assert.equal(spillPreview("x".repeat(600)), "x".repeat(600));
  const emoji = "😀".repeat(700);
  assert.equal(
    spillPreview(emoji),
    `${"😀".repeat(300)}\n...[100 chars omitted]...\n${"😀".repeat(300)}`,
  );
});

test("seed era: failures spill too (BubError → error dict), other failures and spill.read results are skipped, strings are written back", async () => {
  const { tape, store } = makeTape(100);
  const error = new BubError("tool", "boom", { output: "e".repeat(500) });
  const failed = await runHook(tape, "bash", { error });
  assert.match(failed.result as string, /^\[tool output spilled: /);
  assert.equal(failed.error, error);
  const rewritten = await runHook(tape, "bash", { error, result: "short" });
  assert.equal(rewritten.result, "short");
  const other = await runHook(tape, "bash", { error: new Error("x".repeat(1_000)) });
  assert.equal(other.result, null);
  const reads = await runHook(tape, "spill.read", { result: "r".repeat(1_000) });
  assert.equal(reads.result, "r".repeat(1_000));
  const structured = await runHook(tape, "web.fetch", { result: { content: "é".repeat(500) } });
  const handle = handleOf(structured.result as string);
  assert.equal(contentOf(await readSpill(tape, handle)), `{"content": "${"é".repeat(500)}"}`);
  const small = await runHook(tape, "x", { result: { a: 1 } });
  assert.deepEqual(small.result, { a: 1 });
  assert.equal(
    (await runHook(null, "bash", { result: "x".repeat(1_000) })).result,
    "x".repeat(1_000),
  );
  assert.equal(store.read("a__b")!.filter((e) => e.payload.name === "spill.write").length, 2);
});

test("a failing sidecar write returns the truncated preview and records spill.write status error", async () => {
  class Broken extends InMemoryTapeStore {
    override appendMany(
      tape: string,
      entries: readonly import("../../src/tape/entry.ts").TapeEntry[],
    ): Promise<void> {
      if (tape.endsWith("__sidecar__spill")) return Promise.reject(new Error("no space"));
      return super.appendMany(tape, entries);
    }
  }
  const store = new Broken();
  const tape = new Tape({ store, sidecars: [new SpillStore()] }).scoped("a__b");
  const result = await runHook(tape, "bash", { result: "k".repeat(20_000) });
  assert.ok(
    (result.result as string).startsWith(
      "[tool output truncated: 20,000 bytes; spill storage failed]\nkkk",
    ),
  );
  const data = store.read("a__b")![0]?.payload.data as Record<string, unknown>;
  assert.equal(data.status, "error");
  assert.equal(data.error, "no space");
  assert.equal(data.tool, "bash");
});

test("results of parallel tool calls spilled inside a fork stay readable (a spill's entries are written together)", async () => {
  const { tape } = makeTape();
  const texts = ["a", "b", "c"].map((letter) => letter.repeat(20_000));
  const handles: string[] = [];
  {
    await using fork = tape.forkTape(true);
    const results = await Promise.all(
      texts.map((text) => runHook(fork, "bash", { result: text })),
    );
    handles.push(...results.map((result) => handleOf(result.result as string)));
    for (const [i, handle] of handles.entries()) {
      assert.equal(contentOf(await readSpill(fork, handle, { count: 2 })), texts[i]);
    }
  }
  for (const [i, handle] of handles.entries()) {
    assert.equal(contentOf(await readSpill(tape, handle, { count: 2 })), texts[i]);
  }
});
