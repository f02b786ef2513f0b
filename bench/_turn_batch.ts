/**
 * The tape batch of one turn for the tape-path benches (`entry_text_ab.ts`, `file_append_ab.ts`),
 * built with a checkout's own entry constructors so that two checkouts can be timed side by side.
 *
 * @module
 */

/** The batch of a turn: anchor, events, system prompt, messages, a tool call and its result. */
export function turnBatch(
  entry: Record<string, (...args: unknown[]) => unknown>,
  i: number,
): unknown[] {
  const prompt = "You are Bub. ".repeat(280);
  const meta = { run_id: `run-${i}` };
  return [
    entry.anchorEntry!("session/start", { owner: "human" }),
    ...[1, 2, 3].map((n) => entry.eventEntry!(`step.${n}`, { n }, meta)),
    entry.systemEntry!(prompt, meta),
    entry.messageEntry!({ role: "user", content: `turn ${i}` }, meta),
    entry.toolCallEntry!([{
      id: "c1",
      type: "function",
      function: { name: "f", arguments: "{}" },
    }]),
    entry.toolResultEntry!(["ok"], meta),
    ...[4, 5, 6].map((n) => entry.eventEntry!(`step.${n}`, { n }, meta)),
    entry.messageEntry!({ role: "assistant", content: "The answer. ".repeat(20) }, meta),
    ...[7, 8].map((n) => entry.eventEntry!(`step.${n}`, { n }, meta)),
  ];
}
