/**
 * A scripted model plugin: plays back replies and records every call.
 *
 * @module
 */
import type { Plugin } from "../kernel/plugin.ts";
import { AsyncStreamEvents, type StreamEvent } from "../kernel/stream.ts";
import type { Prompt, TurnState } from "../kernel/turn.ts";

/**
 * One scripted reply: text, or a function of the prompt.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BubFramework } from "@bub/core";
 * import { ScriptedModel, type ScriptedReply } from "@bub/core/testing";
 * const replies: ScriptedReply[] = ["first", (prompt) => `second: ${prompt}`];
 * const bub = new BubFramework();
 * bub.register(new ScriptedModel(replies));
 * await bub.processInbound({ channel: "cli", chatId: "local", content: "a" });
 * const second = await bub.processInbound({ channel: "cli", chatId: "local", content: "b" });
 * assert.equal(second.modelOutput, "second: b");
 * ```
 */
export type ScriptedReply = string | ((prompt: Prompt) => string);

/**
 * A plugin implementing `runModelStream` from a script of replies; each call consumes the next
 * reply (the last one repeats) and is recorded in {@link ScriptedModel.calls}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BubFramework } from "@bub/core";
 * import { ScriptedModel } from "@bub/core/testing";
 * const model = new ScriptedModel(["hello"]);
 * const bub = new BubFramework({ loadDotenv: false });
 * bub.register(model);
 * const result = await bub.processInbound({ content: "hi" });
 * assert.ok(result.modelOutput === "hello");
 * ```
 */
export class ScriptedModel implements Plugin {
  /** The plugin name. */
  readonly name: string;
  /** Every call's prompt, session and state, in order. */
  readonly calls: { prompt: Prompt; sessionId: string; state: TurnState }[] = [];
  #replies: ScriptedReply[];

  /**
   * Creates the object.
   *
   * @param replies the replies, in order
   * @param name the plugin name
   */
  constructor(replies: ScriptedReply[], name: string = "scripted-model") {
    if (replies.length === 0) {
      throw new RangeError("Cannot create ScriptedModel: the script is empty");
    }
    this.#replies = [...replies];
    this.name = name;
  }

  /** Streams the next reply as one `text` event and a `final` event. */
  runModelStream(
    { prompt, sessionId, state }: { prompt: Prompt; sessionId: string; state: TurnState },
  ): AsyncStreamEvents {
    this.calls.push({ prompt, sessionId, state });
    const reply = this.#replies.length > 1 ? this.#replies.shift()! : this.#replies[0]!;
    const text = typeof reply === "function" ? reply(prompt) : reply;
    async function* events(): AsyncGenerator<StreamEvent> {
      yield { kind: "text", data: { delta: text } };
      yield { kind: "final", data: { ok: true, text } };
    }
    return new AsyncStreamEvents(events());
  }
}
