/**
 * What `serveAcp` is given: the framework's side ({@link AcpHost}) and the connection's
 * options ({@link AcpServeOptions}).
 *
 * @module
 */
import type { TurnEvent } from "../../kernel/turn_stream.ts";
import type { AcpBridge } from "./acp_bridge.ts";
import type { AcpModels } from "./session_config.ts";

/**
 * What the ACP server needs of the framework (a `BubFramework` is one).
 *
 * @example
 * ```ts
 * import { BubFramework } from "@bub/core";
 * import type { AcpHost } from "@bub/core/channels";
 * const host: AcpHost = new BubFramework();
 * ```
 */
export interface AcpHost {
  /** The workspace (tapes are named from it). */
  readonly workspace?: string;
  /** Bub's home: a deleted session's tape is archived under `<home>/tapes` (none: not kept). */
  readonly home?: string;
  /** Runs one turn and yields its events (see `KernelFramework.streamInbound`). */
  streamInbound(
    inbound: unknown,
    options?: { signal?: AbortSignal },
  ): AsyncIterable<TurnEvent>;
  /** The tape store, when the framework has one. */
  getTapeStore<T extends object = object>(): T | null;
}

/**
 * Options of {@link serveAcp}.
 *
 * @example
 * ```ts
 * import type { AcpServeOptions } from "@bub/core/channels";
 * const pipe = new TransformStream<Uint8Array, Uint8Array>();
 * const options: AcpServeOptions = { input: pipe.readable, output: pipe.writable };
 * ```
 */
export interface AcpServeOptions {
  /** The client's messages (stdin). */
  input: ReadableStream<Uint8Array>;
  /** Where the agent's messages go (stdout). */
  output: WritableStream<Uint8Array>;
  /** Closes the connection. */
  signal?: AbortSignal;
  /**
   * Why no model can be called (e.g. no API key), or null: `initialize` then offers one auth
   * method whose description says how to configure Bub, and prompts fail with "auth required".
   */
  setupProblem?: string | null;
  /**
   * Told about the editor's file system and open sessions (register its plugin on the
   * framework so the fs tools go through the editor).
   */
  bridge?: AcpBridge;
  /** The models an editor may pick per session (config option `model`); none: no options. */
  models?: AcpModels;
  /**
   * The model's context window in tokens: after each model call the editor gets a
   * `usage_update` (tokens in context / this size). Null or absent: unknown, no usage updates.
   */
  contextWindow?: number | null;
}
