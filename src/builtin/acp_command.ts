/**
 * `bub acp`: serves the Agent Client Protocol on stdin/stdout for an editor (Zed, JetBrains,
 * Neovim, VS Code plugins) until the editor closes stdin, SIGINT, SIGTERM or the command's
 * signal. Stdout carries protocol messages only; Bub's logs go to stderr (and the log file).
 *
 * @module
 */
import process from "node:process";
import { Readable, Writable } from "node:stream";
import { stopSignal } from "./stop_signal.ts";
import { AcpBridge } from "../channels/acp/acp_bridge.ts";
import { serveAcp } from "../channels/acp/acp_server.ts";
import type { AcpModels } from "../channels/acp/session_config.ts";
import type { Environment } from "../kernel/environment.ts";
import type { KernelFramework } from "../kernel/framework.ts";

/** Options of {@link acpCommand}. */
export interface AcpCommandOptions {
  /** Stops the server besides SIGINT, SIGTERM and the end of stdin. */
  signal?: AbortSignal;
  /** Why no model can be called yet (no key, no model), or null. */
  setupProblem?: string | null;
  /** The models an editor may pick per session. */
  models?: AcpModels;
  /** The model's context window in tokens (`context_window`), or null when unknown. */
  contextWindow?: number | null;
}

/** Runs `bub acp` (see the module doc). */
export async function acpCommand(
  framework: KernelFramework,
  options: AcpCommandOptions = {},
): Promise<void> {
  using stop = stopSignal(options.signal);
  // The fs tools of the editor's sessions go through the editor when it offers its file system;
  // commands run in the environment the builtin plugin gives the session (local or sandboxed).
  const bridge = new AcpBridge();
  const builtin = framework.pluginManager.get("builtin") as {
    provideEnvironment?(args: { sessionId: string; workspace: string }): Environment | null;
  } | undefined;
  framework.register(bridge.plugin((args) => builtin?.provideEnvironment?.(args) ?? null));
  await using _scope = await framework.running();
  await serveAcp(framework, {
    input: Readable.toWeb(process.stdin) as unknown as ReadableStream<Uint8Array>,
    output: Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    signal: stop.signal,
    setupProblem: options.setupProblem ?? null,
    bridge,
    models: options.models,
    contextWindow: options.contextWindow ?? null,
  });
}
