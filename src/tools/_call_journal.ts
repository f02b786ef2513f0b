/**
 * Private: the `tool.start` / `tool.end` events of a step's calls on the turn's tape (the
 * executor writes them when `recordCalls` is set): `tool.start {call_id, tool}` right before a
 * call's handler runs, `tool.end {call_id, status, result}` when it ends, with the result as the
 * model will see it.
 *
 * @module
 */

/** How a call ended, as `tool.end` records it. */
export type CallStatus = "ok" | "error" | "denied" | "replaced";

/** What the journal needs of the turn's tape. */
interface EventTape {
  appendEvent(name: string, data: Record<string, unknown>): Promise<unknown>;
}

/** Records `tool.start` / `tool.end` events of a step's calls on its tape. */
export class CallJournal {
  #tape: EventTape;

  constructor(tape: unknown) {
    this.#tape = tape as EventTape;
  }

  async start(callId: string | null, tool: string): Promise<void> {
    await this.#tape.appendEvent("tool.start", { call_id: callId, tool });
  }

  async end(callId: string | null, status: CallStatus, result: unknown): Promise<void> {
    await this.#tape.appendEvent("tool.end", { call_id: callId, status, result });
  }
}
