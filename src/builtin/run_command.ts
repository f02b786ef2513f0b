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
  /** Ends the turn and the running scope. */
  signal?: AbortSignal;
}

function target(message: Envelope): string {
  const { channel, chatId } = inboundOf(message);
  return `[${channel ?? "stdout"}:${chatId ?? "local"}]`;
}

/** A router that writes the turn's text deltas to `output` as they arrive. */
function streamingRouter(output: CliOutput, header: string): ChannelRouter & { used: boolean } {
  const router = {
    used: false,
    dispatchOutput: () => Promise.resolve(false),
    quit: () => Promise.resolve(),
    admitChannelMessage: () => Promise.resolve(null),
    async *wrapStream(_message: Envelope, stream: AsyncIterable<StreamEvent>) {
      for await (const event of stream) {
        if (event.kind === "text") {
          const delta = deltaOf(event);
          if (delta !== "") {
            if (!router.used) output.out(`${header}\n`);
            router.used = true;
            output.out(delta);
          }
        }
        yield event;
      }
    },
  };
  return router;
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
  const router = options.stream ? streamingRouter(output, header) : null;
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
          output.out("\n");
          continue;
        }
        output.out(`${target(outbound)}\n${contentOf(outbound)}\n`);
      }
    });
  } finally {
    if (router) framework.bindChannelRouter(previous);
  }
}
