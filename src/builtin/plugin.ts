/**
 * The builtin plugin: every default hook implementation.
 *
 * @module
 */
import { approvalOutbound } from "./_approval_outbound.ts";
import { getLogger } from "../_internal/log.ts";
import { ChannelMessage } from "../kernel/channel_message.ts";
import { BubError } from "../kernel/errors.ts";
import { type Envelope, sessionKey } from "../kernel/envelope.ts";
import { inboundOf } from "../kernel/inbound.ts";
import type { BubHost } from "./host.ts";
import { registerBuiltinCommands } from "./cli_commands.ts";
import { builtinOnboardConfig } from "./onboard.ts";
import { BuiltinRuntime } from "./runtime.ts";
import { consoleSecrets } from "./console_secrets.ts";
import { createTurnHooks, exitMessageLifespan } from "./turn_hooks.ts";
import { createEnvironmentHooks } from "./environment_hooks.ts";
import { mcpServerPlacement } from "./mcp_sandbox.ts";
import { createTapeHooks } from "./tape_hooks.ts";
import { loadConsoleSettings, loadSandboxSettings, loadTelegramSettings } from "./settings.ts";
import { parseAllowList } from "../_internal/allow_list.ts";
import { LazyTelegramChannel } from "./lazy_telegram_channel.ts";
import { WebChannel } from "../channels/web/web_channel.ts";
import type { Channel } from "../channels/channel.ts";
import { LazyCliChannel } from "./lazy_cli_channel.ts";
import { chatChannels } from "./chat_channels.ts";
import type { MessageHandler } from "../kernel/channel.ts";
import type { Command } from "commander";
import type { Plugin } from "../kernel/plugin.ts";
import type { TurnState } from "../kernel/turn.ts";
import { InMemorySteeringInbox } from "../channels/steering_inbox.ts";

const logger = getLogger(["bub", "builtin"]);

/**
 * The builtin plugin object.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BubFramework } from "@bub/core";
 * import { type BuiltinPlugin, createBuiltinPlugin } from "@bub/core/builtin";
 * const plugin: BuiltinPlugin = createBuiltinPlugin(new BubFramework());
 * assert.equal(plugin.name, "builtin");
 * ```
 */
export interface BuiltinPlugin extends Plugin {
  /** The framework it serves. */
  readonly framework: BubHost;
  /** Settings, agent, tools and shells. */
  readonly runtime: BuiltinRuntime;
  /** Marks every session of this process as the local terminal's (`bub chat`, `bub run`). */
  markLocalTerminal(): void;
  /**
   * Marks this process as serving people other than its user (`bub gateway`, `bub web`): under
   * `sandbox: remote` its stdio MCP servers start sandboxed (`mcp_sandbox.ts`).
   */
  markServesRemote(): void;
}

/**
 * Creates the builtin plugin for `framework`: session resolution, outbound rendering and
 * dispatch through the channel router, error notices and the in-memory steering inbox.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BubFramework } from "@bub/core";
 * import { createBuiltinPlugin } from "@bub/core/builtin";
 * const bub = new BubFramework();
 * bub.register(createBuiltinPlugin(bub), "builtin");
 * assert.ok(bub.pluginManager.has("builtin"));
 * ```
 */
export function createBuiltinPlugin(framework: BubHost): BuiltinPlugin {
  const runtime = new BuiltinRuntime(framework, framework.builtinOptions);
  let localTerminal = false;
  let servesRemote = false;
  const environment = createEnvironmentHooks({
    shells: runtime.shells,
    envPassthrough: () => toolEnvPassthrough(runtime),
    sandbox: () => loadSandboxSettings(runtime.sources),
    hiddenPaths: () => [framework.home],
    localTerminal: () => localTerminal,
    telegramApiRoot: () => loadTelegramSettings(runtime.sources).api_root,
    telegramProxy: () => loadTelegramSettings(runtime.sources).proxy,
  });
  runtime.mcpDriverFor = mcpServerPlacement({
    sandbox: () => loadSandboxSettings(runtime.sources),
    workspace: () => framework.workspace,
    hiddenPaths: () => [framework.home],
    servesRemote: () => servesRemote && !localTerminal,
  });
  const tape = createTapeHooks({
    home: framework.home,
    spillThreshold: undefined,
    tapeStore: () => runtime.tapeStoreSetting(),
    tapeStoreRetrySeconds: () => runtime.tapeStoreRetrySeconds(),
  });
  let spill: number | undefined;
  const turn = createTurnHooks(runtime);
  return {
    name: "builtin",
    framework,
    runtime,
    markLocalTerminal: () => void (localTerminal = true),
    markServesRemote: () => void (servesRemote = true),
    ...turn,
    provideEnvironment: environment.provideEnvironment,
    provideLifespan: () => withMcp(environment.provideLifespan(), runtime),
    provideTapeStore: tape.provideTapeStore,
    buildTapeContext: tape.buildTapeContext,
    provideTapeSidecar() {
      spill ??= runtime.spillThreshold();
      return createTapeHooks({ home: framework.home, spillThreshold: spill }).provideTapeSidecar();
    },
    afterToolCall: tape.afterToolCall,
    onboardConfig(
      { currentConfig }: { currentConfig: Record<string, unknown> },
    ): Record<string, unknown> {
      const names = [...framework.getChannels(() => Promise.resolve()).keys()];
      return builtinOnboardConfig(currentConfig, framework.prompter, names);
    },
    registerCliCommands({ app }: { app: unknown }): void {
      registerBuiltinCommands(app as Command, framework, framework.cliOutput);
    },
    resolveSession({ message }: { message: Envelope }): string {
      const { sessionId, channel, chatId } = inboundOf(message);
      return sessionId !== null && sessionId.trim() !== ""
        ? sessionId
        : sessionKey(channel, chatId);
    },
    renderOutbound(
      { message, sessionId, state, modelOutput }: {
        message: Envelope;
        sessionId: string;
        state: TurnState;
        modelOutput: string;
      },
    ): ChannelMessage {
      const inbound = inboundOf(message);
      // What the answer says about approvals (buttons, a decision's outcome) and where it goes.
      const approvals = approvalOutbound(inbound, state ?? {});
      return new ChannelMessage({
        sessionId,
        channel: inbound.channel ?? "default",
        chatId: inbound.chatId ?? "default",
        content: modelOutput,
        outputChannel: approvals.outputChannel ?? inbound.outputChannel ?? "default",
        kind: inbound.kind as ChannelMessage["kind"],
        context: approvals.context,
      });
    },
    async dispatchOutbound({ message }: { message: Envelope }): Promise<boolean> {
      const outbound = inboundOf(message);
      if (outbound.outputChannel !== "cli") {
        logger.info("session.run.outbound session_id={sessionId} content={content}", {
          sessionId: outbound.sessionId,
          content: outbound.content,
        });
      }
      return await framework.dispatchViaChannelRouter(message);
    },
    async onError(
      { stage, error, message }: { stage: string; error: unknown; message: Envelope | null },
    ): Promise<void> {
      if (message === null || message === undefined) return;
      if (stage === "turn") await exitMessageLifespan(message, error);
      const inbound = inboundOf(message);
      const notice = new ChannelMessage({
        sessionId: inbound.sessionId ?? "unknown",
        channel: inbound.channel ?? "default",
        chatId: inbound.chatId ?? "default",
        content: `An error occurred at stage '${stage}': ${errorText(error)}`,
        kind: "error",
        // A pressed button's channel answers the press with the error (see `_approval_outbound`).
        context: inbound.context._reply_context === undefined
          ? {}
          : { _reply_context: inbound.context._reply_context },
      });
      await framework.hookRuntime.callMany("dispatchOutbound", { message: notice });
    },
    async admitMessage(args) {
      const router = framework.channelRouter;
      return router ? await router.admitChannelMessage(args) : null;
    },
    provideChannels({ messageHandler }: { messageHandler: MessageHandler }): Channel[] {
      const telegram = loadTelegramSettings(runtime.sources);
      const model = safeModel(runtime);
      const workspace = framework.workspace;
      const cli: LazyCliChannel = new LazyCliChannel(async () => ({
        handler: messageHandler,
        workspace,
        home: framework.home,
        model,
        toolNames: () => runtime.registry.names(),
        // `node:tty` is imported when the REPL starts, not with `@bub/core`.
        waitForTurns: !(await import("node:tty")).isatty(0),
        onInterrupt: (sessionId) => framework.quitViaChannelRouter(sessionId),
        tapeInfo: async () => {
          const info = await runtime.agent.sessionTape(cli.sessionId, {
            _runtime_workspace: framework.workspace,
          })
            .info();
          return { entries: info.entries, anchors: info.anchors, lastAnchor: info.lastAnchor };
        },
      }));
      const telegramOptions = {
        handler: messageHandler,
        token: telegram.token,
        allowUsers: parseAllowList(telegram.allow_users),
        allowChats: parseAllowList(telegram.allow_chats),
        proxy: telegram.proxy,
        apiRoot: telegram.api_root,
      };
      // Telegram and the CLI REPL are imported when they start (or first send); the web console
      // when it starts.
      return [
        new LazyTelegramChannel(telegramOptions),
        cli,
        new WebChannel({
          host: framework,
          secrets: consoleSecrets(runtime.sources),
          maxBodyBytes: loadConsoleSettings(runtime.sources).console_max_body_bytes,
          print: (line, warning) =>
            warning ? framework.cliOutput.err(line) : framework.cliOutput.out(line),
        }),
        // Slack, GitHub, Discord, Teams: the Chat SDK and its adapter are imported when the channel starts.
        ...chatChannels(messageHandler, runtime.sources, (line) => framework.cliOutput.out(line)),
      ];
    },
    provideSteeringInbox(): InMemorySteeringInbox {
      return new InMemorySteeringInbox();
    },
  };
}

/**
 * The shell lifespan with the MCP servers around it: they start (in parallel) before the shell
 * scope opens and end after it closes; the shell scope stays the yielded value.
 */
async function* withMcp<T>(
  shells: AsyncGenerator<T, void, unknown>,
  runtime: BuiltinRuntime,
): AsyncGenerator<T, void, unknown> {
  const mcp = runtime.mcp.lifespan();
  await mcp.next();
  try {
    yield* shells;
  } finally {
    await mcp.return(undefined);
  }
}

function toolEnvPassthrough(runtime: BuiltinRuntime): string[] | null {
  try {
    return parseAllowList(runtime.settings.tool_env_passthrough) ?? [];
  } catch {
    return null;
  }
}

function safeModel(runtime: BuiltinRuntime): string {
  try {
    return runtime.settings.model;
  } catch {
    return "";
  }
}

/**
 * An error's text as Bub shows it: `[<kind>] <message>` for a BubError, the message of any other
 * Error (Python's `str(exc)`), else its string form.
 */
function errorText(error: unknown): string {
  if (BubError.isInstance(error)) return String(error);
  if (error instanceof Error) return error.message;
  return String(error);
}
