import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { CliChannel, type CliChannelOptions } from "../../../src/channels/cli/cli_channel.ts";
import type { ChannelMessage } from "../../../src/kernel/channel_message.ts";

const WAIT_MS = 5000;

/** A CLI channel wired to in-memory streams, as a piped terminal. */
export interface CliFixture extends AsyncDisposable {
  cli: CliChannel;
  input: PassThrough;
  output: PassThrough;
  home: string;
  workspace: string;
  messages: ChannelMessage[];
  stop: AbortController;
  /** Everything written to the output so far. */
  text(): string;
  /** Types lines (each followed by a newline). */
  type(...lines: string[]): void;
  /** Resolves once the output contains `needle` (after `from`). */
  waitForOutput(needle: string, from?: number): Promise<string>;
  /** Resolves once `count` messages reached the handler. */
  waitForMessages(count: number): Promise<ChannelMessage[]>;
  /** Resolves once the stop controller is aborted. */
  waitForStop(): Promise<void>;
}

function timeout(what: string, reject: (error: Error) => void): ReturnType<typeof setTimeout> {
  return setTimeout(() => reject(new Error(`Timed out waiting for ${what}`)), WAIT_MS);
}

/** Creates a fixture (temp home and workspace) and starts the channel. */
export async function openCli(
  options: Partial<CliChannelOptions> & { started?: boolean } = {},
): Promise<CliFixture> {
  const root = await mkdtemp(join(tmpdir(), "bub-cli-"));
  const home = join(root, "home");
  const workspace = join(root, "project");
  const input = new PassThrough();
  const output = new PassThrough();
  let written = "";
  const outputWaiters = new Set<() => void>();
  output.on("data", (chunk: Uint8Array | string) => {
    written += typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
    for (const wake of [...outputWaiters]) wake();
  });
  const messages: ChannelMessage[] = [];
  const messageWaiters = new Set<() => void>();
  const cli = new CliChannel({
    handler: (message) => {
      messages.push(message as ChannelMessage);
      for (const wake of [...messageWaiters]) wake();
      return Promise.resolve();
    },
    workspace,
    home,
    model: "openai:test-model",
    input,
    output,
    ...options,
  });
  const stop = new AbortController();
  if (options.started !== false) await cli.start(stop);

  function waitUntil(
    waiters: Set<() => void>,
    ready: () => boolean,
    what: string,
  ): Promise<void> {
    if (ready()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = timeout(what, (error) => {
        waiters.delete(wake);
        reject(error);
      });
      const wake = (): void => {
        if (!ready()) return;
        clearTimeout(timer);
        waiters.delete(wake);
        resolve();
      };
      waiters.add(wake);
    });
  }

  return {
    cli,
    input,
    output,
    home,
    workspace,
    messages,
    stop,
    text: () => written,
    type: (...lines) => {
      for (const line of lines) input.write(line + "\n");
    },
    async waitForOutput(needle, from = 0) {
      await waitUntil(outputWaiters, () => written.indexOf(needle, from) >= 0, `"${needle}"`);
      return written;
    },
    async waitForMessages(count) {
      await waitUntil(messageWaiters, () => messages.length >= count, `${count} messages`);
      return messages.slice(0, count);
    },
    waitForStop() {
      if (stop.signal.aborted) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = timeout("the stop controller", reject);
        stop.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          resolve();
        }, { once: true });
      });
    },
    async [Symbol.asyncDispose]() {
      await cli.stop();
      input.end();
      output.end();
      await rm(root, { recursive: true, force: true });
    },
  };
}
