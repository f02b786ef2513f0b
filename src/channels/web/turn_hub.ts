/**
 * The web console's turns: at most one running turn per session, its events buffered so an
 * event stream opened after the turn started (or ended) still sees all of them, and fanned out to
 * every open stream of that session. A message sent while a turn runs is steered into it (the
 * framework's steering inbox); what the turn did not take starts the next turn.
 *
 * @module
 */
import { BubError } from "../../kernel/errors.ts";
import type { SteeringInbox } from "../../kernel/channel.ts";
import { contentOf, type Envelope } from "../../kernel/envelope.ts";
import { inboundOf } from "../../kernel/inbound.ts";
import type { StreamInboundOptions, TurnEvent } from "../../kernel/turn_stream.ts";
import { endEvent, type WireEvent, wireEvent } from "./wire_events.ts";
import type { MediaItem } from "../../kernel/channel_message.ts";
import { describeUploads, type UploadInfo } from "./uploads.ts";

/** What the hub needs of the framework. */
export interface TurnSource {
  /** Runs one turn and yields its events (see `KernelFramework.streamInbound`). */
  streamInbound(inbound: Envelope, options?: StreamInboundOptions): AsyncIterable<TurnEvent>;
  /** The steering inbox of the running scope (messages sent while a turn runs go there). */
  getSteeringInbox?(): SteeringInbox | null;
}

/** `turn_start` / `steer` data naming the files sent with the message (none: nothing). */
function uploadsData(media: readonly MediaItem[]): { uploads?: UploadInfo[] } {
  return media.length > 0 ? { uploads: describeUploads(media) } : {};
}

/** A listener of one session's wire events. */
export type WireListener = (event: WireEvent) => void;

interface RunningTurn {
  readonly id: number;
  readonly controller: AbortController;
  readonly events: WireEvent[];
  readonly finished: Promise<void>;
}

/** The chat ids a session may use: letters, digits, `._:-`, 1–128 characters. */
const SESSION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Throws an `invalid_input` BubError unless `id` is a usable web session id. */
export function checkSessionId(id: string): string {
  if (!SESSION_ID.test(id)) {
    throw new BubError(
      "invalid_input",
      `Invalid web session id ${
        JSON.stringify(id)
      }: use 1-128 letters, digits, '.', '_', ':' or '-'`,
    );
  }
  return id;
}

/** Runs and streams the console's turns. */
export class TurnHub {
  readonly #source: TurnSource;
  readonly #turns = new Map<string, RunningTurn>();
  readonly #listeners = new Map<string, Set<WireListener>>();
  /** The events of each chat's latest turn (running or finished), replayed to new streams. */
  readonly #latest = new Map<string, WireEvent[]>();
  #nextId = 1;
  #closed = false;

  /** A hub running turns on `source`. */
  constructor(source: TurnSource) {
    this.#source = source;
  }

  /** The web chats that ran a turn since the console started. */
  chats(): string[] {
    return [...this.#latest.keys()];
  }

  /** Whether `chatId` has a turn running. */
  running(chatId: string): boolean {
    return this.#turns.has(chatId);
  }

  /**
   * Sends `content` to web chat `chatId` (session `web:<chatId>`): steered into the running turn
   * when there is one and the framework has a steering inbox, else a new turn.
   */
  async send(
    chatId: string,
    content: string,
    media: readonly MediaItem[] = [],
  ): Promise<{ turn: number; steered: boolean }> {
    checkSessionId(chatId);
    const turn = this.#turns.get(chatId);
    const inbox = this.#source.getSteeringInbox?.() ?? null;
    if (turn && inbox) {
      const sessionId = `web:${chatId}`;
      const message = { channel: "web", chatId, content, sessionId, media: [...media] };
      await inbox.enqueueMessage(message, { session_id: sessionId });
      this.#emit(chatId, turn.events, {
        kind: "steer",
        data: { turn: turn.id, content, ...uploadsData(media) },
      });
      return { turn: turn.id, steered: true };
    }
    return { turn: this.start(chatId, content, media), steered: false };
  }

  #emit(chatId: string, events: WireEvent[], event: WireEvent): void {
    events.push(event);
    for (const listener of this.#listeners.get(chatId) ?? []) {
      try {
        listener(event);
      } catch { /* a broken stream must not stop the turn */ }
    }
  }

  /** Messages steered into a turn that ended before taking them. */
  async #leftovers(chatId: string): Promise<{ texts: string[]; media: MediaItem[] }> {
    const inbox = this.#source.getSteeringInbox?.() ?? null;
    if (!inbox) return { texts: [], media: [] };
    const messages = await inbox.drainMessages({ session_id: `web:${chatId}` });
    return {
      texts: messages.map((message) => contentOf(message)).filter((text) => text.trim() !== ""),
      media: messages.flatMap((message) => inboundOf(message).media as MediaItem[]),
    };
  }

  /**
   * Starts a turn of `content` in web chat `chatId` (session `web:<chatId>`) and returns its id;
   * throws a BubError when a turn of that chat is still running.
   */
  start(chatId: string, content: string, media: readonly MediaItem[] = []): number {
    checkSessionId(chatId);
    if (this.#turns.has(chatId)) {
      throw new BubError("invalid_input", `A turn is already running in web chat ${chatId}`);
    }
    const id = this.#nextId++;
    const controller = new AbortController();
    const events: WireEvent[] = [];
    const emit = (event: WireEvent): void => this.#emit(chatId, events, event);
    const inbound = { channel: "web", chatId, content, media: [...media] };
    const finished = (async () => {
      emit({ kind: "turn_start", data: { turn: id, content, ...uploadsData(media) } });
      try {
        const stream = this.#source.streamInbound(inbound, { signal: controller.signal });
        for await (const event of stream) emit(wireEvent(event));
      } catch (error) {
        emit(endEvent(error, controller.signal.aborted));
      } finally {
        this.#turns.delete(chatId);
      }
      const leftovers = controller.signal.aborted || this.#closed
        ? { texts: [], media: [] }
        : await this.#leftovers(chatId);
      const { texts, media: files } = leftovers;
      if ((texts.length > 0 || files.length > 0) && !this.#turns.has(chatId)) {
        this.start(chatId, texts.join("\n\n"), files);
      }
    })();
    this.#turns.set(chatId, { id, controller, events, finished });
    this.#latest.set(chatId, events);
    return id;
  }

  /** Cancels the running turn of `chatId`; false when none runs. */
  cancel(chatId: string): boolean {
    const turn = this.#turns.get(chatId);
    if (!turn) return false;
    turn.controller.abort(new DOMException("Stopped from the web console", "AbortError"));
    return true;
  }

  /**
   * Whether a new stream of `chatId` starts with a replayed turn that has finished (it is on
   * the tape too: a reader of the tape leaves that last turn to the stream).
   */
  replaysFinishedTurn(chatId: string): boolean {
    const last = this.#latest.get(chatId)?.at(-1)?.kind;
    return last === "done" || last === "failed" || last === "cancelled";
  }

  /**
   * Subscribes to `chatId`'s events: the latest turn's events so far (running or finished) are
   * replayed first.
   * Returns the unsubscribe function.
   */
  subscribe(chatId: string, listener: WireListener): () => void {
    checkSessionId(chatId);
    for (const event of this.#latest.get(chatId) ?? []) listener(event);
    let set = this.#listeners.get(chatId);
    if (!set) this.#listeners.set(chatId, set = new Set());
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#listeners.get(chatId) === set) this.#listeners.delete(chatId);
    };
  }

  /** Cancels every running turn and waits for them to end. */
  async close(): Promise<void> {
    this.#closed = true;
    const turns = [...this.#turns.values()];
    for (const turn of turns) {
      turn.controller.abort(new DOMException("Console closed", "AbortError"));
    }
    await Promise.all(turns.map((turn) => turn.finished));
  }
}
