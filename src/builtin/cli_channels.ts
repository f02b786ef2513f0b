/**
 * `bub chat` and `bub gateway`: a channel manager over the CLI channel, or over every enabled
 * channel.
 *
 * @module
 */
import process from "node:process";
import { styleText } from "node:util";
import { ChannelManager } from "../channels/manager.ts";
import { CliExit, type CliOutput } from "./cli_io.ts";
import { clusterGatewayFor } from "./cluster_setup.ts";
import type { BubHost } from "./host.ts";
import { loadChannelSettings } from "./settings.ts";
import type { BuiltinRuntime } from "./runtime.ts";
import { resumeInterruptedSessions } from "./turn_recovery_start.ts";
import { stopSignal } from "./stop_signal.ts";

/** Options of `bub chat`. */
export interface ChatOptions {
  /** The chat id. Default `local`. */
  chatId?: string;
  /** The session id. Default: the CLI channel's own. */
  sessionId?: string;
  /** Stops the chat (default: never; the REPL's `,quit` stops it too). */
  signal?: AbortSignal;
}

/** Runs the interactive chat: a manager with only the `cli` channel and streaming output. */
export async function chatCommand(
  framework: BubHost,
  runtime: BuiltinRuntime,
  options: ChatOptions,
  output: CliOutput,
): Promise<void> {
  const settings = loadChannelSettings(runtime.sources);
  const manager = new ChannelManager(framework, {
    enabledChannels: ["cli"],
    streamOutput: true,
    debounceSeconds: settings.debounce_seconds,
    maxWaitSeconds: settings.max_wait_seconds,
    activeTimeWindow: settings.active_time_window,
  });
  const cli = manager.channels.get("cli") as
    | { setMetadata?(meta: { sessionId?: string; chatId?: string }): void }
    | undefined;
  if (!cli) throw new CliExit(1, "CLI channel not found. Please check your hook implementations.");
  cli.setMetadata?.({ chatId: options.chatId ?? "local", sessionId: options.sessionId });
  void output;
  // SIGTERM stops the chat cleanly (the REPL closes and the terminal leaves raw mode); Ctrl-C is
  // the REPL's own key.
  const terminate = new AbortController();
  const onTerm = () => terminate.abort(new DOMException("Terminated", "AbortError"));
  process.once("SIGTERM", onTerm);
  try {
    const signal = options.signal
      ? AbortSignal.any([options.signal, terminate.signal])
      : terminate.signal;
    const chatId = options.chatId ?? "local";
    // A turn of this chat's session a crash interrupted is resumed and shown first.
    const onStarted = () =>
      resumeInterruptedSessions(runtime, {
        accept: (origin) =>
          origin.channel === "cli" &&
          (options.sessionId ? origin.session_id === options.sessionId : origin.chat_id === chatId),
        stream: true,
        signal,
      });
    await manager.listenAndRun({ signal, onStarted });
  } finally {
    process.off("SIGTERM", onTerm);
  }
}

/** The names in `selection` (minus `all` and `!` prefixes) that name no provided channel. */
function unknownChannelNames(
  selection: string | readonly string[],
  known: readonly string[],
): string[] {
  const names = (typeof selection === "string" ? [selection] : selection)
    .flatMap((name) => name.split(","))
    .map((name) => name.trim().replace(/^!/, ""))
    .filter((name) => name !== "" && name !== "all");
  return [...new Set(names)].filter((name) => !known.includes(name));
}

/** Options of `bub gateway`. */
export interface GatewayOptions {
  /** Channel names to enable (default: the `enabled_channels` setting). */
  enableChannel?: string[];
  /** Stops the gateway (default: SIGINT/SIGTERM). */
  signal?: AbortSignal;
  /** Also stops the gateway (e.g. `main()`'s SIGHUP). */
  hangup?: AbortSignal;
}

/** Serves every enabled channel until interrupted. */
export async function gatewayCommand(
  framework: BubHost,
  runtime: BuiltinRuntime,
  options: GatewayOptions,
  output: CliOutput,
): Promise<void> {
  const settings = loadChannelSettings(runtime.sources);
  const enabled = options.enableChannel && options.enableChannel.length > 0
    ? options.enableChannel
    : settings.enabled_channels;
  const managerOptions = {
    enabledChannels: enabled,
    streamOutput: settings.stream_output,
    debounceSeconds: settings.debounce_seconds,
    maxWaitSeconds: settings.max_wait_seconds,
    activeTimeWindow: settings.active_time_window,
  };
  // A PostgreSQL tape store: this gateway is one instance of a cluster (cluster_setup.ts).
  const cluster = await clusterGatewayFor(framework, runtime, managerOptions);
  const manager = cluster?.manager ?? new ChannelManager(framework, managerOptions);
  const unknown = unknownChannelNames(enabled, [...manager.channels.keys()]);
  if (unknown.length > 0) {
    output.err(
      `${unknown.map((name) => `Unknown channel "${name}"`).join(", ")} (known: ${
        [...manager.channels.keys()].join(", ")
      }); ignored.\n`,
    );
  }
  if (manager.enabledChannels().length === 0) {
    throw new CliExit(
      1,
      styleText(
        "red",
        "No channels are enabled. Configure at least one channel with 'bub onboard' or '--enable-channel'.",
        { stream: process.stderr },
      ),
    );
  }
  const interrupt = options.signal ? null : stopSignal();
  if (cluster) output.out(`bub gateway: cluster instance ${cluster.owner}\n`);
  output.out(
    `bub gateway: serving ${manager.enabledChannels().map((channel) => channel.name).join(", ")}\n`,
  );
  try {
    const signal = options.signal ?? interrupt!.signal;
    const stop = options.hangup ? AbortSignal.any([signal, options.hangup]) : signal;
    // The turns a crash interrupted in sessions of the served channels are resumed at start.
    const served = new Set(manager.enabledChannels().map((channel) => channel.name));
    const onStarted = () =>
      resumeInterruptedSessions(runtime, {
        accept: (origin) => origin.channel !== null && served.has(origin.channel),
        stream: manager.streamOutput,
        signal: stop,
      });
    await (cluster ? cluster.run(stop) : manager.listenAndRun({ signal: stop, onStarted }));
  } finally {
    interrupt?.[Symbol.dispose]();
  }
}
