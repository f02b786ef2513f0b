/** Test helper of the context-sharing tests: a session tape of whole turns. */
import { anchorEntry, messageEntry, toolCallEntry, toolResultEntry } from "../../src/tape/entry.ts";
import { InMemoryTapeStore } from "../../src/tape/memory_store.ts";
import { Tape } from "../../src/tape/tape.ts";

/** Tape `a__b` (memory store): a start anchor, then `turns` turns of user, tool call, result, answer. */
export async function sessionTape(turns: number): Promise<Tape> {
  const tape = new Tape({ store: new InMemoryTapeStore(), name: "a__b" });
  await tape.store.append("a__b", anchorEntry("session/start", { owner: "human" }));
  for (let i = 0; i < turns; i++) {
    await tape.store.append("a__b", messageEntry({ role: "user", content: `turn ${i} é` }));
    await tape.store.append(
      "a__b",
      toolCallEntry([{ id: `c${i}`, type: "function", function: { name: "f", arguments: "{}" } }]),
    );
    await tape.store.append("a__b", toolResultEntry(["ok"]));
    await tape.store.append("a__b", messageEntry({ role: "assistant", content: `done ${i}` }));
  }
  return tape;
}
