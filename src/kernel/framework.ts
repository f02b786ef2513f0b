/**
 * The framework: plugin registration, the turn pipeline (`processInbound`) and the runtime
 * resource scope (`running()`).
 *
 * @module
 */
import process from "node:process";
import { expandHome } from "../_internal/home.ts";
import { unsupportedRuntime } from "../_internal/runtime.ts";
import { BubError } from "./errors.ts";
import { AgentHooks, isCancellation } from "./agent_hooks.ts";
import type {
  AdmitDecision,
  Channel,
  ChannelRouter,
  MessageHandler,
  SteeringInbox,
  TurnSnapshot,
} from "./channel.ts";
import { loadConfigFile, loadDotenv } from "./configure.ts";
import type { Environment } from "./environment.ts";
import type { Envelope } from "./envelope.ts";
import { HookRuntime } from "./hook_runtime.ts";
import { PluginManager, type PluginStatus } from "./plugin_manager.ts";
import { type CliApp, createCliApp } from "./cli_app.ts";
import type { RunningScope } from "./running_scope.ts";
import type { TapeContext, TapeSidecar } from "./tape_context.ts";
import type { ModelOptions } from "./model_options.ts";
import type { Prompt, TurnResult, TurnState } from "./turn.ts";
import { FrameworkHooks } from "./_framework_hooks.ts";
import { RuntimeResources } from "./_runtime_resources.ts";
import { configuredPlugins, loadPlugins } from "./_plugin_loader.ts";
import { type ProcessInboundOptions, runTurn } from "./_turn_pipeline.ts";
import { type TurnHost, turnHost } from "./_turn_host.ts";
import { frameworkPaths, resolveReal } from "./_framework_paths.ts";
import type { AgentHost } from "./agent_host.ts";
import { agentHostOf } from "./_agent_host.ts";
import {
  buildTurnPrompt,
  resolveTurnSession,
  sessionEnvironment,
  steerInto,
  turnState,
} from "./_turn_state.ts";
import { type StreamInboundOptions, streamTurn, type TurnEvent } from "./turn_stream.ts";

/**
 * Options of {@link KernelFramework}.
 *
 * @example
 * ```ts
 * import { KernelFramework, type FrameworkOptions } from "@bub/core/kernel";
 * const options: FrameworkOptions = { workspace: ".", loadDotenv: false };
 * const kernel = new KernelFramework(options);
 * ```
 */
export interface FrameworkOptions {
  /** The YAML config file. Default `BUB_CONFIG`, else `<home>/config.yml`. */
  configFile?: string;
  /** The workspace. Default: the resolved current directory. */
  workspace?: string;
  /** Runtime data (tapes, history). Default `BUB_HOME` or `~/.bub`. */
  home?: string;
  /**
   * Load `<cwd>/.env` into `process.env` (without overriding). Default false: the framework leaves
   * `process.env` alone; the `bub` CLI loads the working directory's `.env` itself.
   */
  loadDotenv?: boolean;
  /**
   * Creates the plugin {@link KernelFramework.loadBuiltinHooks} registers as `builtin`, called
   * with the framework. Default: an empty plugin (`BubFramework` passes the builtin one).
   */
  builtinPlugin?: (framework: KernelFramework) => object;
}

export type { ProcessInboundOptions } from "./_turn_pipeline.ts";

/**
 * A plugin, a plugin factory, or a module specifier for {@link KernelFramework.loadHooks}.
 *
 * @example
 * ```ts
 * import { definePlugin } from "@bub/core";
 * import { KernelFramework, type PluginSource } from "@bub/core/kernel";
 * const sources: PluginSource[] = [
 *   definePlugin({ name: "inline", runModel: () => "ok" }),
 *   (framework: KernelFramework) => definePlugin({ name: "factory", systemPrompt: () => framework.workspace }),
 * ];
 * await new KernelFramework({ loadDotenv: false }).loadHooks({ plugins: sources });
 * ```
 */
export type PluginSource = string | object | ((framework: KernelFramework) => unknown);

/**
 * Options of {@link KernelFramework.loadHooks}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { definePlugin } from "@bub/core";
 * import { KernelFramework, type LoadHooksOptions } from "@bub/core/kernel";
 * const options: LoadHooksOptions = { plugins: [definePlugin({ name: "echo", runModel: () => "ok" })], strict: true };
 * const kernel = await new KernelFramework({ loadDotenv: false }).loadHooks(options);
 * assert.ok(kernel.pluginManager.has("echo"));
 * ```
 */
export interface LoadHooksOptions {
  /** Plugins to load after builtin; default: the `plugins:` list of the config file. */
  plugins?: readonly PluginSource[];
  /**
   * Throw a `BubError` (`config`) when a plugin fails to load or initialize, instead of logging
   * it. Default: true for the config file's `plugins:` list (a configured policy must not be
   * silently missing), false for an explicit `plugins` option.
   */
  strict?: boolean;
}

/**
 * The hook-first microkernel: registers plugins, runs turns through the hook pipeline, and owns
 * the runtime-resource scope. It knows no LLM, no tape format and no shell. `BubFramework` adds
 * the builtin plugin on top of it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { definePlugin } from "@bub/core";
 * import { KernelFramework } from "@bub/core/kernel";
 * const kernel = new KernelFramework({ loadDotenv: false });
 * kernel.register(definePlugin({ name: "upper", runModel: ({ prompt }) => String(prompt).toUpperCase() }));
 * const result = await kernel.processInbound({ channel: "cli", chatId: "local", content: "hi" });
 * assert.equal(result.modelOutput, "HI");
 * ```
 */
export class KernelFramework {
  /** The workspace (absolute, resolved). */
  workspace: string;
  /** The resolved config file path. */
  readonly configFile: string;
  /** Runtime data directory. */
  readonly home: string;
  /** The plugin registry. */
  readonly pluginManager: PluginManager;
  /** Hook dispatch. */
  readonly hookRuntime: HookRuntime;
  /** Load status per plugin name. */
  readonly pluginStatus: Map<string, PluginStatus> = new Map();
  #config: Record<string, unknown> | null = null;
  #agentHooks: AgentHooks;
  #hooks: FrameworkHooks;
  #resources = new RuntimeResources();
  #host: TurnHost;
  #agentHost: AgentHost;
  #builtinPlugin: ((framework: KernelFramework) => object) | undefined;

  /**
   * Creates the object.
   *
   * @param options config file, workspace, home
   * @throws BubError (config) on a Node older than 22.12, saying so (it would fail later, far
   *   from the cause)
   */
  constructor(options: FrameworkOptions = {}) {
    const unsupported = unsupportedRuntime();
    if (unsupported !== null) throw new BubError("config", unsupported);
    if (options.loadDotenv === true) loadDotenv(process.cwd());
    const paths = frameworkPaths(options);
    this.workspace = paths.workspace;
    this.home = paths.home;
    this.configFile = paths.configFile;
    this.pluginManager = new PluginManager();
    this.hookRuntime = new HookRuntime(this.pluginManager);
    this.#agentHooks = new AgentHooks(this.hookRuntime);
    this.#hooks = new FrameworkHooks(this.hookRuntime);
    this.#host = turnHost(this.hookRuntime, this.#resources, () => this.workspace);
    this.#agentHost = agentHostOf({
      home: this.home,
      agentHooks: this.#agentHooks,
      hooks: this.#hooks,
      runtime: this.hookRuntime,
      resources: this.#resources,
    });
    this.#config = loadConfigFile(this.configFile);
    this.#builtinPlugin = options.builtinPlugin;
  }

  /**
   * The loaded config file data (`{}` when the file does not exist).
   *
   * @throws {BubError} (`config`) when the file is not valid YAML or not a mapping
   */
  get config(): Record<string, unknown> {
    this.#config ??= loadConfigFile(this.configFile);
    return this.#config;
  }

  /** Replaces the config data (e.g. after `bub onboard`). */
  set config(value: Record<string, unknown>) {
    this.#config = value;
  }

  /**
   * Registers a plugin (registered later = higher priority).
   *
   * @throws {TypeError} when it is not a plugin object
   * @throws {BubError} when the name or object is already registered
   */
  register(plugin: object, name?: string): this {
    const registered = this.pluginManager.register(plugin, name);
    this.pluginStatus.set(registered, { isSuccess: true });
    return this;
  }

  /** The builtin plugin: the `builtinPlugin` option's, else an empty one. */
  protected createBuiltinPlugin(): object {
    return this.#builtinPlugin?.(this) ?? { name: "builtin" };
  }

  /** Registers the builtin plugin under the name `builtin`. */
  loadBuiltinHooks(): this {
    const plugin = this.createBuiltinPlugin();
    try {
      this.pluginManager.register(plugin, "builtin");
      this.pluginStatus.set("builtin", { isSuccess: true });
    } catch (error) {
      this.pluginStatus.set("builtin", { isSuccess: false, detail: String(error) });
    }
    return this;
  }

  /**
   * Registers builtin, then the listed plugins in order: all are loaded (imported) first, then
   * each is instantiated (factories are called with the framework) and registered. A plugin that
   * fails to load or initialize is logged and recorded in {@link pluginStatus}, and the rest still
   * load, unless `strict` (the default for the config file's list): then loading stops with a
   * `BubError` (`config`) naming the plugin, its resolved path and the error.
   */
  async loadHooks(options: LoadHooksOptions = {}): Promise<this> {
    this.loadBuiltinHooks();
    await loadPlugins(
      this,
      options.plugins ?? configuredPlugins(this.config),
      options.strict ?? options.plugins === undefined,
    );
    return this;
  }

  /** The agent-loop interception facade. */
  getAgentHooks(): AgentHooks {
    return this.#agentHooks;
  }

  /** The narrow host an agent runs on: the framework's answers, without calling back into it. */
  agentHost(): AgentHost {
    return this.#agentHost;
  }

  /** Runs one inbound message through the hook pipeline. */
  processInbound(inbound: Envelope, options: ProcessInboundOptions = {}): Promise<TurnResult> {
    return runTurn(this.#host, inbound, options);
  }

  /**
   * Runs one inbound message and yields its events as they happen: the model stream's events
   * (`text` deltas, `tool_call`, `tool_result`, `usage`, `error`, `final` per step), then
   * `{ kind: "done", data: { result } }`. Leaving the loop early cancels the turn.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { BubFramework, definePlugin } from "@bub/core";
   * const bub = new BubFramework();
   * bub.register(definePlugin({ name: "echo", runModel: () => "hello" }));
   * let text = "";
   * for await (const event of bub.streamInbound({ channel: "cli", chatId: "local", content: "hi" })) {
   *   if (event.kind === "text") text += event.data.delta;
   * }
   * assert.equal(text, "hello");
   * ```
   */
  streamInbound(inbound: Envelope, options: StreamInboundOptions = {}): AsyncGenerator<TurnEvent> {
    return streamTurn(this, inbound, options);
  }

  /** The session id: the hook's answer, else the message's `sessionId`, else `channel:chatId`. */
  resolveSession(message: Envelope): Promise<string> {
    return resolveTurnSession(this.hookRuntime, message);
  }

  /** A fresh turn state: runtime keys, the session environment, then merged `loadState` results. */
  buildState(message: Envelope, sessionId: string): Promise<TurnState> {
    return turnState(this.#host, message, sessionId);
  }

  /** The prompt: `buildPrompt`'s answer, or the message content when it is empty. */
  buildPrompt(message: Envelope, sessionId: string, state: TurnState): Promise<Prompt> {
    return buildTurnPrompt(this.hookRuntime, message, sessionId, state);
  }

  /** The next step's user message from `continuePrompt`, or null. */
  continuePrompt(
    args: { prompt: Prompt | null; tape: unknown; state: unknown },
  ): Promise<string | null> {
    return this.#hooks.continuePrompt(args);
  }

  /**
   * The admission decision of `admitMessage` for a channel message, or null.
   *
   * @throws {TypeError} when an implementation returns something other than an AdmitDecision
   */
  admitMessage(
    args: { sessionId: string; message: Envelope; turn: TurnSnapshot },
  ): Promise<AdmitDecision | null> {
    return this.#hooks.admitMessage(args);
  }

  /** Merged model options of every plugin. */
  getModelOptions(
    args: { sessionId: string; workspace?: string | null },
  ): Promise<ModelOptions> {
    const workspace = args.workspace ? resolveReal(expandHome(args.workspace)) : this.workspace;
    return this.#hooks.getModelOptions(args.sessionId, workspace);
  }

  /** Queues `message` into the steering inbox for a running turn; false without an inbox. */
  async steerMessage(
    args: { message: Envelope; sessionId: string; state: TurnState; reason?: string | null },
  ): Promise<boolean> {
    const inbox = this.#resources.steeringInbox;
    if (inbox === null) return false;
    await steerInto(inbox, args);
    return true;
  }

  /**
   * Opens the runtime-resource scope: lifespans, then the tape store, then the steering inbox.
   * Use with `await using`; call `scope.close(error)` (or {@link withRunning}) to pass a body error
   * into the entered generators.
   */
  async running(): Promise<RunningScope> {
    return await this.#resources.open(this.#hooks);
  }

  /**
   * Runs `body` inside {@link running}; the body's error reaches the entered generators, and
   * a generator that swallows it suppresses it (the result is then undefined).
   */
  async withRunning<T>(body: (scope: RunningScope) => Promise<T>): Promise<T | undefined> {
    const scope = await this.running();
    let result: T;
    try {
      result = await body(scope);
    } catch (error) {
      await scope.close(error);
      return undefined;
    }
    await scope.close();
    return result;
  }

  /**
   * The session's environment, asked of `provideEnvironment` once per session and cached until
   * the running scope exits (a session no provider answered for is not asked again).
   *
   * @throws {TypeError} when a provider returns something other than an Environment
   */
  getEnvironment(sessionId: string): Promise<Environment | null> {
    return sessionEnvironment(this.#host, sessionId);
  }

  /** The tape store entered by `running()`; null outside the scope. */
  getTapeStore<T extends object = object>(): T | null {
    return this.#resources.tapeStore as T | null;
  }

  /** The steering inbox entered by `running()`; null outside the scope. */
  getSteeringInbox(): SteeringInbox | null {
    return this.#resources.steeringInbox;
  }

  /** Unique sidecars by name, the highest-priority provider winning. */
  getTapeSidecars(): readonly TapeSidecar[] {
    return this.#hooks.getTapeSidecars();
  }

  /** The system prompt: truthy `systemPrompt` fragments, lowest priority first, joined by a blank line. */
  getSystemPrompt(args: { prompt: Prompt; state: TurnState }): string {
    return this.#hooks.getSystemPrompt(args);
  }

  /**
   * The tape context of `buildTapeContext`.
   *
   * @throws {TypeError} unless a provider returns a TapeContext
   */
  buildTapeContext(): TapeContext {
    return this.#hooks.buildTapeContext();
  }

  /** Name → channel, the highest-priority provider's channel winning. */
  getChannels(handler: MessageHandler): Map<string, Channel> {
    return this.#hooks.getChannels(handler);
  }

  /** Attaches (or with null detaches) the channel router. */
  bindChannelRouter(router: ChannelRouter | null): void {
    this.#resources.router = router;
  }

  /** The bound channel router, or null. */
  get channelRouter(): ChannelRouter | null {
    return this.#resources.router;
  }

  /** Sends `message` through the router; false without one. */
  dispatchViaChannelRouter(message: Envelope): Promise<boolean> {
    const router = this.#resources.router;
    return router ? router.dispatchOutput(message) : Promise.resolve(false);
  }

  /** Asks the router to quit a session; a no-op without one. */
  async quitViaChannelRouter(sessionId: string): Promise<void> {
    await this.#resources.router?.quit(sessionId);
  }

  /** The root `bub` CLI app with every plugin's commands (see `registerCliCommands`). */
  createCliApp(): CliApp {
    return createCliApp(this);
  }

  /** Collects `onboardConfig` fragments (lowest priority first), merges and validates them. */
  collectOnboardConfig(): Record<string, unknown> {
    return this.#hooks.collectOnboardConfig();
  }

  /** Hook name → plugin names, lowest priority first. */
  hookReport(): Record<string, string[]> {
    return this.hookRuntime.hookReport();
  }
}

export { isCancellation };
