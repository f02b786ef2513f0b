/**
 * The `bub chat` answer to an approval request: the ids a turn's text asks about
 * (`,approve <id>`) are remembered, the prompt becomes `approve? [y/n/always]`, and a `y`, `n`
 * or `always` line becomes `,approve <id>`, `,deny <id>` or `,approve <id> always` for the
 * oldest open id. Any other line goes to the session as usual.
 *
 * @module
 */
import type { StreamEvent } from "../../kernel/stream.ts";

const ASKED = /,approve ([a-z2-7]{10})\b/g;
const ANSWERS: Readonly<Record<string, (id: string) => string>> = {
  y: (id) => `,approve ${id}`,
  yes: (id) => `,approve ${id}`,
  n: (id) => `,deny ${id}`,
  no: (id) => `,deny ${id}`,
  a: (id) => `,approve ${id} always`,
  always: (id) => `,approve ${id} always`,
};

/** The open approval requests of the REPL's session. */
export class ApprovalPrompt {
  #open: string[] = [];

  /** True while an id waits for an answer. */
  get waiting(): boolean {
    return this.#open.length > 0;
  }

  /** The prompt label while waiting. */
  label(): string {
    return `approve ${this.#open[0]}? [y/n/always] `;
  }

  /** Re-yields `stream`, remembering the ids its text asks about; `onDone` runs at its end. */
  async *watch(
    stream: AsyncIterable<StreamEvent>,
    onDone: () => void,
  ): AsyncIterable<StreamEvent> {
    let text = "";
    try {
      for await (const event of stream) {
        if (event.kind === "text") text += String(event.data.delta ?? "");
        yield event;
      }
    } finally {
      for (const [, id] of text.matchAll(ASKED)) {
        if (!this.#open.includes(id!)) this.#open.push(id!);
      }
      // An id this turn decided is no longer open.
      for (const [, id] of text.matchAll(/(?:Approved|Denied|Approval) ([a-z2-7]{10})\b/g)) {
        this.#open = this.#open.filter((open) => open !== id);
      }
      onDone();
    }
  }

  /** The comma command a `y` / `n` / `always` line stands for, or null for any other line. */
  answer(line: string): string | null {
    const id = this.#open[0];
    const make = ANSWERS[line.trim().toLowerCase()];
    if (id === undefined || make === undefined) return null;
    this.#open.shift();
    return make(id);
  }
}
