/**
 * `bub run`: one inbound message in its own running scope. The answer streams to stdout as it
 * arrives when asked (`--stream`, the default when stdout is a terminal), else each outbound is
 * printed whole. Aborting `signal` ends the running scope (terminating tool process groups).
 *
 * @module
 */
import { ChannelMessage } from "../kernel/channel_message.ts";
import type { ChannelRouter } from "../kernel/channel.ts";
import { contentOf, type Envelope, sessionKey } from "../kernel/envelope.ts";
import { inboundOf } from "../kernel/inbound.ts";
import type { KernelFramework } from "../kernel/framework.ts";
import { deltaOf } from "../kernel/hook_runtime.ts";
import type { StreamEvent } from "../kernel/stream.ts";
import type { Writable } from "node:stream";
import type { TurnRenderer } from "../channels/cli/turn_renderer.ts";
import type { CliOutput } from "./cli_io.ts";

/** Options of {@link runCommand}. */
export interface RunOptions {
  /** The channel name. */
  channel: string;
  /** The chat id. */
  chatId: string;
  /** Stored as `context.sender_id`. */
  senderId: string;
  /** The session id (default `<channel>:<chat-id>`). */
  sessionId?: string;
  /** Print text deltas as they arrive. Default false. */
  stream?: boolean;
  /**
   * A terminal to draw the answer on as `bub chat` does (Markdown in a panel, tool calls as they
   * run); null or absent prints plain text (piped output).
   */
  render?: Writable | null;
  /** Ends the turn and the running scope. */
  signal?: AbortSignal;
}

function target(message: Envelope): string {
  const { channel, chatId } = inboundOf(message);
  return `[${channel ?? "stdout"}:${chatId ?? "local"}]`;
}

/**
 * A router that shows the turn's text as it arrives: deltas written to `output` as they are, or
 * drawn by `renderer` on a terminal.
 */
function streamingRouter(
  output: CliOutput,
  header: string,
  renderer: TurnRenderer | null,
): ChannelRouter & { used: boolean } {
  const router = {
    used: false,
    dispatchOutput: () => Promise.resolve(false),
    quit: () => Promise.resolve(),
    admitChannelMessage: () => Promise.resolve(null),
    wrapStream(_message: Envelope, stream: AsyncIterable<StreamEvent>) {
      const seen = noteText(stream, (delta) => {
        if (renderer === null) {
          if (!router.used) output.out(`${header}\n`);
          output.out(delta);
        }
        router.used = true;
      });
      return renderer === null ? seen : renderer.stream(seen);
    },
  };
  return router;
}

/** Re-yields `stream`, calling `onText` with each non-empty text delta. */
async function* noteText(
  stream: AsyncIterable<StreamEvent>,
  onText: (delta: string) => void,
): AsyncIterable<StreamEvent> {
  for await (const event of stream) {
    if (event.kind === "text") {
      const delta = deltaOf(event);
      if (delta !== "") onText(delta);
    }
    yield event;
  }
}

/** Rejects with the signal's reason once `signal` aborts. */
function whenAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    if (!signal) return;
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/** Runs one inbound message in its own running scope and prints each outbound. */
export async function runCommand(
  framework: KernelFramework,
  message: string,
  options: RunOptions,
  output: CliOutput,
): Promise<void> {
  const inbound = new ChannelMessage({
    sessionId: options.sessionId ?? sessionKey(options.channel, options.chatId),
    channel: options.channel,
    chatId: options.chatId,
    content: message,
    context: { sender_id: options.senderId },
  });
  const header = target(inbound);
  const renderer = options.render
    ? (await import("../channels/cli/turn_renderer.ts")).turnRenderer(options.render)
    : null;
  const router = options.stream ? streamingRouter(output, header, renderer) : null;
  const previous = framework.channelRouter;
  if (router) framework.bindChannelRouter(router);
  try {
    await framework.withRunning(async () => {
      const turn = framework.processInbound(inbound, {
        stream: options.stream === true,
        signal: options.signal,
      });
      turn.catch(() => {}); // when the signal wins the race below
      const result = await Promise.race([turn, whenAborted(options.signal)]);
      for (const outbound of result.outbounds) {
        // The answer to this chat was streamed already.
        if (router?.used && target(outbound) === header) {
          if (renderer === null) output.out("\n");
          continue;
        }
        if (renderer !== null && target(outbound) === header) {
          await renderer.print(contentOf(outbound));
          continue;
        }
        output.out(`${target(outbound)}\n${contentOf(outbound)}\n`);
      }
    });
  } finally {
    if (router) framework.bindChannelRouter(previous);
  }
}
