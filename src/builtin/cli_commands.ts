/**
 * The builtin `bub` commands: `run`, `hooks` (hidden), and — once the channel layer is loaded —
 * `chat`, `gateway` and `onboard`.
 *
 * @module
 */
import type { Command } from "commander";
import { ChannelMessage } from "../kernel/channel_message.ts";
import { contentOf, envelopeField, fieldOf } from "../kernel/envelope.ts";
import type { KernelFramework } from "../kernel/framework.ts";
import { saveConfigFile } from "../kernel/configure.ts";
import { PromptAborted } from "./onboard.ts";
import { chatCommand, gatewayCommand } from "./cli_channels.ts";
import type { BubFramework } from "./framework.ts";
import type { BuiltinRuntime } from "./runtime.ts";

const BANNER = String.raw`
  ____        _
 | __ ) _   _| |__
 |  _ \| | | | '_  | |_) | |_| | |_) |
 |____/ \__,_|_.__/
`;

/** Ends a command with an exit code and a message for stderr. */
export class CliExit extends Error {
  /** The process exit code. */
  readonly exitCode: number;
  /**
   * Creates the object.
   *
   * @param exitCode the exit code
   * @param message printed to stderr when non-empty
   */
  constructor(exitCode: number, message: string = "") {
    super(message);
    this.name = "CliExit";
    this.exitCode = exitCode;
  }
}

/** Where commands write. */
export interface CliOutput {
  /** Standard output. */
  out(text: string): void;
  /** Standard error. */
  err(text: string): void;
}

/** The package version shown by `bub onboard`. */
export const VERSION = "0.1.0";

/** Options of `bub run`. */
interface RunOptions {
  channel: string;
  chatId: string;
  senderId: string;
  sessionId?: string;
}

/** Runs one inbound message in its own running scope and prints each outbound. */
export async function runCommand(
  framework: KernelFramework,
  message: string,
  options: RunOptions,
  output: CliOutput,
): Promise<void> {
  const inbound = new ChannelMessage({
    sessionId: options.sessionId ?? `${options.channel}:${options.chatId}`,
    channel: options.channel,
    chatId: options.chatId,
    content: message,
    context: { sender_id: options.senderId },
  });
  await framework.withRunning(async () => {
    const result = await framework.processInbound(inbound);
    for (const outbound of result.outbounds) {
      const channel = fieldOf(outbound, "channel", null) ?? "stdout";
      const chatId = envelopeField(outbound, "chatId", "chat_id") ?? "local";
      output.out(`[${String(channel)}:${String(chatId)}]\n${contentOf(outbound)}\n`);
    }
  });
}

/** Prints the hook report: `<hook>: <plugin>, ...` lines or `(no hook implementations)`. */
export function hooksCommand(framework: KernelFramework, output: CliOutput): void {
  const lines = Object.entries(framework.hookReport()).map(([hook, names]) =>
    `${hook}: ${names.join(", ")}`
  );
  output.out((lines.length ? lines.join("\n") : "(no hook implementations)") + "\n");
}

/** Collects every plugin's onboarding fragment and writes the config file. */
export function onboardCommand(
  framework: KernelFramework,
  output: CliOutput,
  version: string,
): void {
  output.out(`${BANNER}\n  Bub ${version}: let's set up your agent.\n\n`);
  let config: Record<string, unknown>;
  try {
    config = framework.collectOnboardConfig();
    saveConfigFile(framework.configFile, config);
  } catch (error) {
    if (error instanceof PromptAborted) throw new CliExit(1, "Aborted!");
    throw new CliExit(
      1,
      `Onboarding failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  output.out(`Saved config to ${framework.configFile}\n`);
}

/** Adds the builtin commands to `app`. */
export function registerBuiltinCommands(
  app: Command,
  framework: KernelFramework,
  output: CliOutput,
): void {
  app.command("run")
    .description("Run one message through the pipeline and print the outbound messages")
    .argument("<message>", "the inbound content")
    .option("--channel <name>", "channel name", "cli")
    .option("--chat-id <id>", "chat id", "local")
    .option("--sender-id <id>", "stored as context.sender_id", "human")
    .option("--session-id <id>", "session id (default <channel>:<chat-id>)")
    .action(async (message: string, options: RunOptions) => {
      await runCommand(framework, message, options, output);
    });
  app.command("onboard")
    .description("Answer a few questions and write the config file")
    .action(() => onboardCommand(framework, output, VERSION));
  app.command("chat")
    .description("Chat with the agent in the terminal")
    .option("--chat-id <id>", "chat id", "local")
    .option("--session-id <id>", "session id (default: the CLI channel's)")
    .action(async (options: { chatId: string; sessionId?: string }) => {
      const runtime = (framework.pluginManager.get("builtin") as { runtime?: BuiltinRuntime })
        ?.runtime;
      if (!runtime) {
        throw new CliExit(1, "CLI channel not found. Please check your hook implementations.");
      }
      await chatCommand(framework as BubFramework, runtime, options, output);
    });
  app.command("gateway")
    .description("Serve the enabled channels (e.g. Telegram) until interrupted")
    .option(
      "--enable-channel <name>",
      "enable a channel (repeatable)",
      (value: string, list: string[]) => [...list, value],
      [] as string[],
    )
    .action(async (options: { enableChannel: string[] }) => {
      const runtime = (framework.pluginManager.get("builtin") as { runtime?: BuiltinRuntime })
        ?.runtime;
      if (!runtime) {
        throw new CliExit(
          1,
          "No channels are enabled. Configure at least one channel with 'bub onboard' or '--enable-channel'.",
        );
      }
      await gatewayCommand(framework as BubFramework, runtime, options, output);
    });
  app.command("hooks", { hidden: true })
    .description("List hook implementations per hook")
    .action(() => hooksCommand(framework, output));
}
