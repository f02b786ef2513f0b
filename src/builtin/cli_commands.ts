/**
 * The builtin `bub` commands: `run`, `chat`, `gateway`, `web`, `acp`, `onboard`, `mcp`, `login`,
 * `logout`, `hooks`, and the plugin commands (`install`, `uninstall`, `update`, `plugins`:
 * plugin_commands.ts).
 * Their definitions are light; the bodies of `run`, `chat`, `gateway`, `web`, `acp` and `mcp` are
 * imported when the command runs, so that importing `@bub/core` loads none of them.
 *
 * @module
 */
import type { Command } from "commander";
import process from "node:process";
import type { KernelFramework } from "../kernel/framework.ts";
import { VERSION } from "../version.ts";
import { saveConfigFile } from "../kernel/configure.ts";
import { PromptAborted } from "./onboard.ts";
import { CliExit, type CliOutput } from "./cli_io.ts";
import type { BubHost } from "./host.ts";
import type { BuiltinRuntime } from "./runtime.ts";
import type { RunOptions } from "./run_command.ts";
import type { LoginOptions } from "./auth/login_command.ts";
import { registerPluginCommands } from "./plugin_commands.ts";

/** The `bub onboard` banner (lines joined: a raw template would lose the `\\` ending a line). */
const BANNER: string = [
  "  ____        _",
  " | __ ) _   _| |__",
  " |  _ \\| | | | '_ \\",
  " | |_) | |_| | |_) |",
  " |____/ \\__,_|_.__/",
].join("\n");

export { CliExit, type CliOutput } from "./cli_io.ts";

export { VERSION } from "../version.ts";

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
  output.out(`\n${BANNER}\n\n  Bub ${version}: let's set up your agent.\n\n`);
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

/** The builtin plugin's runtime, or a `CliExit` with `message`. */
function builtinRuntime(framework: KernelFramework, message: string): BuiltinRuntime {
  const runtime = (framework.pluginManager.get("builtin") as { runtime?: BuiltinRuntime })?.runtime;
  if (!runtime) throw new CliExit(1, message);
  return runtime;
}

/**
 * Gets the model ready for `run`/`chat`: with `demo`, starts the mock model (the result stops
 * it); otherwise, when the builtin plugin runs the model and it is not configured, throws a
 * `CliExit` saying how to configure one (before any network call).
 */
async function prepareModel(
  framework: KernelFramework,
  runtime: BuiltinRuntime | undefined,
  demo: boolean | undefined,
): Promise<AsyncDisposable | null> {
  const { builtinRunsModel, modelSetupProblem } = await import("./model_setup.ts");
  if (!runtime || !builtinRunsModel(framework)) return null;
  if (demo) {
    const start = (framework as Partial<Pick<BubHost, "demoModel">>).demoModel;
    if (!start) throw new CliExit(1, "bub: --demo is not available here (no demo model)");
    const server = await start();
    runtime.overrideEnv({
      BUB_MODEL: "custom:demo",
      BUB_API_BASE: server.url,
      BUB_API_KEY: "demo",
    });
    return server;
  }
  const problem = modelSetupProblem(runtime);
  if (problem) throw new CliExit(1, problem);
  return null;
}

/** The signal stopping the current command (set by `main()`), if any. */
function cliSignal(framework: KernelFramework): AbortSignal | undefined {
  return (framework as { cliSignal?: AbortSignal | null }).cliSignal ?? undefined;
}

/** `bub chat` and `bub run` act for the user at the terminal: `sandbox: remote` leaves them be. */
function markLocalTerminal(framework: KernelFramework): void {
  (framework.pluginManager.get("builtin") as { markLocalTerminal?: () => void } | undefined)
    ?.markLocalTerminal?.();
}

/** `bub gateway` and `bub web` serve other people: `sandbox: remote` sandboxes their MCP servers. */
function markServesRemote(framework: KernelFramework): void {
  (framework.pluginManager.get("builtin") as { markServesRemote?: () => void } | undefined)
    ?.markServesRemote?.();
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
    .option("--demo", "use the built-in mock model (no API key needed)")
    .option("--stream", "print the answer as it arrives (default when stdout is a terminal)")
    .option("--no-stream", "print the answer once it is complete")
    .action(async (message: string, options: RunOptions & { demo?: boolean }) => {
      const runtime = (framework.pluginManager.get("builtin") as { runtime?: BuiltinRuntime })
        ?.runtime;
      markLocalTerminal(framework);
      const demo = await prepareModel(framework, runtime, options.demo);
      const tty = process.stdout.isTTY === true;
      const stream = options.stream ?? tty;
      try {
        const { runCommand } = await import("./run_command.ts");
        await runCommand(
          framework,
          message,
          { ...options, stream, render: tty ? process.stdout : null, signal: cliSignal(framework) },
          output,
        );
      } finally {
        await demo?.[Symbol.asyncDispose]();
      }
    });
  app.command("onboard")
    .description("Answer a few questions and write the config file")
    .action(() => onboardCommand(framework, output, VERSION));
  app.command("chat")
    .description("Chat with the agent in the terminal")
    .option("--chat-id <id>", "chat id", "local")
    .option("--session-id <id>", "session id (default: the CLI channel's)")
    .option("--demo", "use the built-in mock model (no API key needed)")
    .action(async (options: { chatId: string; sessionId?: string; demo?: boolean }) => {
      const runtime = builtinRuntime(
        framework,
        "CLI channel not found. Please check your hook implementations.",
      );
      markLocalTerminal(framework);
      const demo = await prepareModel(framework, runtime, options.demo);
      try {
        const { chatCommand } = await import("./cli_channels.ts");
        await chatCommand(
          framework as BubHost,
          runtime,
          { ...options, signal: cliSignal(framework) },
          output,
        );
      } finally {
        await demo?.[Symbol.asyncDispose]();
      }
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
      const runtime = builtinRuntime(
        framework,
        "No channels are enabled. Configure at least one channel with 'bub onboard' or '--enable-channel'.",
      );
      markServesRemote(framework);
      const { gatewayCommand } = await import("./cli_channels.ts");
      await gatewayCommand(
        framework as BubHost,
        runtime,
        { ...options, hangup: cliSignal(framework) },
        output,
      );
    });
  app.command("web")
    .description("Serve the web console (chat and tapes) and print its URL with the access token")
    .option(
      "--host <host>",
      "the host to bind (binding beyond loopback prints a warning)",
      "127.0.0.1",
    )
    .option("--port <port>", "the port (0 picks a free one)", "0")
    .option("--demo", "use the built-in mock model (no API key needed)")
    .action(async (options: { host: string; port: string; demo?: boolean }) => {
      const runtime = (framework.pluginManager.get("builtin") as { runtime?: BuiltinRuntime })
        ?.runtime;
      markServesRemote(framework);
      const demo = await prepareModel(framework, runtime, options.demo);
      try {
        const { webCommand } = await import("./web_command.ts");
        await webCommand(framework, { ...options, signal: cliSignal(framework) }, output);
      } finally {
        await demo?.[Symbol.asyncDispose]();
      }
    });
  app.command("acp")
    .description(
      "Serve the Agent Client Protocol on stdin/stdout (for editors: Zed, JetBrains, Neovim)",
    )
    .option("--demo", "use the built-in mock model (no API key needed)")
    .action(async (options: { demo?: boolean }) => {
      // The editor runs Bub for its own user, as `bub chat` does: `sandbox: remote` leaves it be.
      markLocalTerminal(framework);
      const runtime = (framework.pluginManager.get("builtin") as { runtime?: BuiltinRuntime })
        ?.runtime;
      // A missing model setup is not fatal here: the editor is told how to configure it.
      const demo = options.demo ? await prepareModel(framework, runtime, true) : null;
      const { builtinRunsModel, modelSetupProblem } = await import("./model_setup.ts");
      const setupProblem = !demo && runtime && builtinRunsModel(framework)
        ? modelSetupProblem(runtime)
        : null;
      try {
        const { acpCommand } = await import("./acp_command.ts");
        const settings = runtime && !setupProblem ? runtime.settings : null;
        const models = settings
          ? { default: settings.model, others: settings.fallback_models ?? [] }
          : undefined;
        await acpCommand(framework, {
          signal: cliSignal(framework),
          setupProblem,
          models,
          contextWindow: settings?.context_window ?? null,
        });
      } finally {
        await demo?.[Symbol.asyncDispose]();
      }
    });
  app.command("mcp")
    .description("Start the configured MCP servers and list their state and tools")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }) => {
      const runtime = builtinRuntime(framework, "MCP servers need the builtin plugin.");
      const { mcpCommand } = await import("./mcp_command.ts");
      await mcpCommand(framework, runtime, output, options);
    });
  app.command("sandbox")
    .description("The sandbox of sessions' commands")
    .command("status")
    .description("Print whether the sandbox runs here and a session's effective profile")
    .option("--session <id>", "the session whose profile is printed (default: a Telegram one)")
    .option("--json", "print JSON")
    .action(async (options: { session?: string; json?: boolean }) => {
      const runtime = builtinRuntime(framework, "The sandbox needs the builtin plugin.");
      const { sandboxStatusCommand } = await import("./sandbox_command.ts");
      await sandboxStatusCommand(framework, runtime, output, options);
    });
  app.command("login")
    .description(
      "Sign in with a subscription (openai: a ChatGPT plan); no provider: show the login",
    )
    .argument("[provider]", "the provider: openai")
    .option("--device", "sign in with a device code (no browser or callback needed)")
    .option("--no-browser", "print the sign-in URL without opening a browser")
    .option("--port <port>", "the callback port (default 1455, then 1457)")
    .option("--timeout <seconds>", "how long to wait for the browser", "300")
    .option("--status", "show the login instead")
    .action(async (provider: string | undefined, options: LoginOptions) => {
      const runtime = builtinRuntime(framework, "Login needs the builtin plugin.");
      const { loginCommand } = await import("./auth/login_command.ts");
      const signal = cliSignal(framework);
      await loginCommand(framework, runtime, provider, { ...options, signal }, output);
    });
  app.command("logout")
    .description("Remove a stored login (openai)")
    .argument("[provider]", "the provider: openai")
    .action(async (provider: string | undefined) => {
      const runtime = builtinRuntime(framework, "Logout needs the builtin plugin.");
      const { logoutCommand } = await import("./auth/login_command.ts");
      await logoutCommand(framework, runtime, provider, output);
    });
  app.command("hooks")
    .description("List the hook implementations of each hook")
    .action(() => hooksCommand(framework, output));
  registerPluginCommands(app, framework, output);
}
