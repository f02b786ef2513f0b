/**
 * What joins an editor's connection to the framework: the sessions the editor has open and the
 * file system it offers. Registered as the `acp` plugin, its `provideEnvironment` gives an open
 * session a {@link ClientFsEnvironment} over the environment the other plugins would give it
 * (the builtin's: local or sandboxed), so the fs tools read and write through the editor; its
 * `beforeToolCall` holds every tool call of a session in the editor's "ask" mode.
 *
 * @module
 */
import type { Environment } from "../../kernel/environment.ts";
import type { Tool } from "../../tools/tool.ts";
import { type ClientFs, ClientFsEnvironment } from "./client_environment.ts";
import { planTool } from "./plan_tool.ts";

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
  readonly #sessions = new Set<string>();
  readonly #askEveryTool = new Set<string>();

  /** The editor connected, offering `fs` (each method null when not offered). */
  connect(fs: AcpClientFs): void {
    this.#fs = fs;
  }

  /** The editor is gone: its sessions fall back to Bub's own environment. */
  disconnect(): void {
    this.#fs = null;
    this.#sessions.clear();
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
   * the editor offers its file system, and answers null (the next plugin's turn) otherwise; the
   * `plan.update` tool lets the model show its plan in the editor.
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
        if (!fs) return null;
        const env = await base(args);
        return env ? new ClientFsEnvironment(env, fs) : null;
      },
    };
  }
}
