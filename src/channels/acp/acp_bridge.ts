/**
 * What joins an editor's connection to the framework: the sessions the editor has open, the
 * file system and the terminals it offers. Registered as the `acp` plugin, its
 * `provideEnvironment` gives an open session a {@link ClientFsEnvironment} over the environment
 * the other plugins would give it (the builtin's: local or sandboxed), so the fs tools read and
 * write through the editor and commands run in its terminals — unless the session is sandboxed:
 * then its commands stay in the sandbox, which the editor's terminal would leave. Its
 * `beforeToolCall` holds every tool call of a session in the editor's "ask" mode.
 *
 * @module
 */
import type { Environment } from "../../kernel/environment.ts";
import type { Tool } from "../../tools/tool.ts";
import { type ClientFs, ClientFsEnvironment } from "./client_environment.ts";
import { planTool } from "./plan_tool.ts";
import type { ClientTerminals, TerminalExit, TerminalSpec } from "./terminal_process.ts";

/**
 * The editor's side of a connection, as the bridge uses it.
 *
 * @example
 * ```ts
 * import type { AcpClientFs } from "@bub/core/channels";
 * const readOnly: AcpClientFs = { readText: () => Promise.resolve(""), writeText: null };
 * ```
 */
export interface AcpClientFs {
  /** `fs/read_text_file` of `sessionId`, or null when not offered. */
  readText: ((sessionId: string, path: string) => Promise<string>) | null;
  /** `fs/write_text_file` of `sessionId`, or null when not offered. */
  writeText: ((sessionId: string, path: string, content: string) => Promise<void>) | null;
}

/**
 * The editor's terminals (`terminal/*`), as the bridge uses them.
 *
 * @example
 * ```ts
 * import type { AcpClientTerminal } from "@bub/core/channels";
 * const none: AcpClientTerminal = {
 *   create: () => Promise.reject(new Error("no terminals here")),
 *   output: () => Promise.resolve({ output: "", truncated: false }),
 *   waitForExit: () => Promise.resolve({ exitCode: 0 }),
 *   kill: () => Promise.resolve(),
 *   release: () => Promise.resolve(),
 * };
 * ```
 */
export interface AcpClientTerminal {
  /** `terminal/create` in session `sessionId`: the terminal id. */
  create(sessionId: string, spec: TerminalSpec): Promise<string>;
  /** `terminal/output`. */
  output(
    sessionId: string,
    id: string,
  ): Promise<{ output: string; truncated: boolean; exitStatus?: TerminalExit | null }>;
  /** `terminal/wait_for_exit`. */
  waitForExit(sessionId: string, id: string): Promise<TerminalExit>;
  /** `terminal/kill`. */
  kill(sessionId: string, id: string): Promise<void>;
  /** `terminal/release`. */
  release(sessionId: string, id: string): Promise<void>;
}

/**
 * Shows terminal `terminalId` in tool call `callId` of a running prompt.
 *
 * @example
 * ```ts
 * import type { TerminalEmbedder } from "@bub/core/channels";
 * const shown: string[] = [];
 * const embed: TerminalEmbedder = (callId, terminalId) =>
 *   Promise.resolve(void shown.push(`${callId}: ${terminalId}`));
 * ```
 */
export type TerminalEmbedder = (callId: string, terminalId: string) => Promise<void>;

/**
 * The environment the other plugins provide for a session.
 *
 * @example
 * ```ts
 * import { LocalEnvironment } from "@bub/core/environment";
 * import type { BaseEnvironment } from "@bub/core/channels";
 * const base: BaseEnvironment = ({ workspace }) => new LocalEnvironment(workspace);
 * ```
 */
export type BaseEnvironment = (
  args: { sessionId: string; workspace: string },
) => Promise<Environment | null | undefined> | Environment | null | undefined;

/**
 * The open sessions of an editor and its file system.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LocalEnvironment } from "@bub/core/environment";
 * import { AcpBridge } from "@bub/core/channels";
 * const bridge = new AcpBridge();
 * bridge.connect({ readText: () => Promise.resolve("from the editor"), writeText: null });
 * bridge.open("acp:1");
 * const plugin = bridge.plugin(({ workspace }) => new LocalEnvironment(workspace));
 * const env = await plugin.provideEnvironment({ sessionId: "acp:1", workspace: "/w" });
 * assert.equal(await env?.readText("/w/a.txt"), "from the editor");
 * assert.equal(await plugin.provideEnvironment({ sessionId: "cli:local", workspace: "/w" }), null);
 * ```
 */
export class AcpBridge {
  #fs: AcpClientFs | null = null;
  #terminal: AcpClientTerminal | null = null;
  readonly #sessions = new Set<string>();
  readonly #askEveryTool = new Set<string>();
  readonly #embedders = new Map<string, TerminalEmbedder>();

  /**
   * The editor connected, offering `fs` (each method null when not offered) and, when it
   * offers them, its terminals.
   */
  connect(fs: AcpClientFs, terminal: AcpClientTerminal | null = null): void {
    this.#fs = fs;
    this.#terminal = terminal;
  }

  /** The editor is gone: its sessions fall back to Bub's own environment. */
  disconnect(): void {
    this.#fs = null;
    this.#terminal = null;
    this.#sessions.clear();
  }

  /**
   * While a prompt of `sessionId` runs, `embed` shows each terminal in its tool call; the
   * returned function stops that.
   */
  watchTerminals(sessionId: string, embed: TerminalEmbedder): () => void {
    this.#embedders.set(sessionId, embed);
    return () => {
      if (this.#embedders.get(sessionId) === embed) this.#embedders.delete(sessionId);
    };
  }

  /** The editor's terminals for `sessionId`, or null (not open, or not offered). */
  clientTerminals(sessionId: string): ClientTerminals | null {
    const terminal = this.#terminal;
    if (!terminal || !this.#sessions.has(sessionId)) return null;
    return {
      create: (spec) => terminal.create(sessionId, spec),
      output: (id) => terminal.output(sessionId, id),
      waitForExit: (id) => terminal.waitForExit(sessionId, id),
      kill: (id) => terminal.kill(sessionId, id),
      release: (id) => terminal.release(sessionId, id),
      embed: (callId, id) => this.#embedders.get(sessionId)?.(callId, id) ?? Promise.resolve(),
    };
  }

  /** The editor opened session `sessionId` (new, load or resume). */
  open(sessionId: string): void {
    this.#sessions.add(sessionId);
  }

  /** The editor closed session `sessionId`. */
  close(sessionId: string): void {
    this.#sessions.delete(sessionId);
    this.#askEveryTool.delete(sessionId);
  }

  /** The session's mode: `ask` holds every tool call for the editor's permission. */
  setMode(sessionId: string, mode: "default" | "ask"): void {
    if (mode === "ask") this.#askEveryTool.add(sessionId);
    else this.#askEveryTool.delete(sessionId);
  }

  /** The session's mode. */
  modeOf(sessionId: string): "default" | "ask" {
    return this.#askEveryTool.has(sessionId) ? "ask" : "default";
  }

  /** The editor's file system for `sessionId`, or null (not open, or nothing offered). */
  clientFs(sessionId: string): ClientFs | null {
    const fs = this.#fs;
    if (!fs || !this.#sessions.has(sessionId) || (!fs.readText && !fs.writeText)) return null;
    return {
      readText: fs.readText ? (path) => fs.readText!(sessionId, path) : null,
      writeText: fs.writeText ? (path, content) => fs.writeText!(sessionId, path, content) : null,
    };
  }

  /**
   * The `acp` plugin: `provideEnvironment` wraps `base`'s environment of an open session when
   * the editor offers its file system or terminals (not for a sandboxed session's commands), and
   * answers null (the next plugin's turn) otherwise; the `plan.update` tool lets the model show
   * its plan in the editor.
   */
  plugin(base: BaseEnvironment): {
    name: string;
    tools: Tool[];
    provideEnvironment(args: { sessionId: string; workspace: string }): Promise<Environment | null>;
    beforeToolCall(
      args: { call: { tool: string }; state: Record<string, unknown> },
    ): { action: "ask"; reason: string } | null;
  } {
    return {
      name: "acp",
      tools: [planTool()],
      // The "ask" mode: every tool call but the plan waits for the editor's permission.
      beforeToolCall: ({ call, state }) =>
        typeof state.session_id === "string" && this.modeOf(state.session_id) === "ask" &&
          call.tool !== "plan.update"
          ? { action: "ask", reason: "the editor asks before every tool call" }
          : null,
      provideEnvironment: async (args) => {
        const fs = this.clientFs(args.sessionId);
        let terminals = this.clientTerminals(args.sessionId);
        if (!fs && !terminals) return null;
        const env = await base(args);
        if (!env) return null;
        // A sandboxed session's commands stay in the sandbox: the editor's terminal is outside.
        if (terminals && await sandboxed(env)) terminals = null;
        if (!fs && !terminals) return null;
        return new ClientFsEnvironment(env, fs ?? { readText: null, writeText: null }, terminals);
      },
    };
  }
}

/** Whether `env` runs its commands in Bub's sandbox (loaded only when the editor has terminals). */
async function sandboxed(env: Environment): Promise<boolean> {
  const { SandboxedEnvironment } = await import("../../environment/sandboxed_environment.ts");
  return env instanceof SandboxedEnvironment;
}
