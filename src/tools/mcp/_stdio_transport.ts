/**
 * Private: the MCP stdio client transport over Bub's process driver. Unlike the SDK's own (a plain
 * `child_process.spawn`), the server starts in its own process group, so closing ends the server
 * and everything it started (an `npx` wrapper's child, a shell's jobs), and its stderr is kept
 * (the last {@link STDERR_TAIL_BYTES} bytes) for the log when it fails. Messages are read in
 * time linear in their size (each byte is looked at once), and one past `maxMessageBytes` is not
 * kept in memory: it streams to a spill file and a cut result is delivered in its place (see
 * `_oversized.ts`).
 *
 * @module
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types";
import { delay } from "../../_internal/async.ts";
import { isRecord } from "../../_internal/object.ts";
import { processDriver } from "../../environment/driver_select.ts";
import type { DriverChild, ProcessDriver } from "../../environment/process_driver.ts";
import { mcpSpillPath, OversizedMessage } from "./_oversized.ts";

/** How much of a server's stderr is kept. */
export const STDERR_TAIL_BYTES = 4096;
/** How long a server may take to exit after its stdin closes, then after SIGTERM. */
const EXIT_GRACE_MS = 1000;

/** What to start. */
export interface StdioTransportOptions {
  /** The executable. */
  command: string;
  /** Its arguments. */
  args: readonly string[];
  /** Variables added to the host's environment. */
  env: Record<string, string>;
  /** Working directory; null: the host's. */
  cwd: string | null;
  /**
   * The largest message kept in memory (`mcp_max_result_bytes`); a larger one is spilled to a
   * file and answered with its cut text. Default: no limit.
   */
  maxMessageBytes?: number;
  /** The server's name (names its spill files). */
  server?: string;
  /** What starts and signals the process (a sandboxing one); default the runtime's driver. */
  driver?: ProcessDriver;
}

/** A newline-delimited JSON-RPC transport to a server process. */
export class ProcessStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  #options: StdioTransportOptions;
  #child: DriverChild | null = null;
  #stderr: Uint8Array[] = [];
  #stderrBytes = 0;
  #closing: Promise<void> | null = null;
  #drained: Promise<unknown> | null = null;
  #exitCode: number | null = null;
  #encoder = new TextEncoder();

  /**
   * Creates the transport; nothing starts before {@link start}.
   *
   * @param options the command
   */
  constructor(options: StdioTransportOptions) {
    this.#options = options;
  }

  /** The server's pid (also its process group id), or null before start. */
  get pid(): number | null {
    return this.#child?.pid ?? null;
  }

  /** The server's exit code once it has exited, else null. */
  get exitCode(): number | null {
    return this.#exitCode;
  }

  /**
   * Waits up to `ms` for the server to exit and its stderr to end (a server that failed is
   * usually exiting), so {@link stderrTail} holds its last words.
   */
  async settle(ms: number): Promise<void> {
    if (this.#drained) await within(this.#drained, ms);
  }

  /** The last bytes the server wrote to stderr, decoded and trimmed. */
  stderrTail(): string {
    const bytes = new Uint8Array(this.#stderrBytes);
    let offset = 0;
    for (const chunk of this.#stderr) {
      bytes.set(chunk, offset);
      offset += chunk.length;
    }
    return new TextDecoder().decode(bytes).trim();
  }

  /** Starts the process; rejects when it cannot start (e.g. the command is not found). */
  async start(): Promise<void> {
    if (this.#child) throw new Error("Cannot start MCP stdio transport: already started");
    const child = await (this.#options.driver ?? processDriver()).spawn({
      file: this.#options.command,
      args: [...this.#options.args],
      cwd: this.#options.cwd,
      env: this.#options.env,
    });
    this.#child = child;
    const stdout = this.#readStdout(child);
    const stderr = this.#readStderr(child);
    void child.exited.then((code) => this.#exitCode = code);
    this.#drained = Promise.all([child.exited, stdout, stderr]);
    void this.#drained.then(() => {
      if (!this.#closing) this.#closing = this.#endGroup(child);
      this.onclose?.();
    });
  }

  async #readStdout(child: DriverChild): Promise<void> {
    const max = this.#options.maxMessageBytes ?? Number.POSITIVE_INFINITY;
    // The current line: its chunks (only new bytes are searched for the line end), or, past
    // the cap, the spill of an oversized message.
    let parts: Uint8Array[] = [];
    let bytes = 0;
    let oversized: OversizedMessage | null = null;
    try {
      for await (const chunk of child.stdout) {
        let start = 0;
        while (start < chunk.length) {
          const end = chunk.indexOf(10, start);
          const piece = chunk.subarray(start, end < 0 ? chunk.length : end);
          if (oversized !== null) oversized.write(piece);
          else if (piece.length > 0) {
            parts.push(piece);
            bytes += piece.length;
            if (bytes > max) {
              const path = mcpSpillPath(this.#options.server ?? "mcp");
              oversized = new OversizedMessage(path, max, parts);
              parts = [];
              bytes = 0;
            }
          }
          if (end < 0) break;
          if (oversized !== null) this.#deliverOversized(oversized);
          else if (bytes > 0) this.#deliver(lineText(parts, bytes));
          oversized = null;
          parts = [];
          bytes = 0;
          start = end + 1;
        }
      }
    } catch (error) {
      if (!this.#closing) this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #deliverOversized(message: OversizedMessage): void {
    const outcome = message.end();
    if ("error" in outcome) this.onerror?.(new Error(outcome.error));
    else this.onmessage?.(outcome.message as unknown as JSONRPCMessage);
  }

  #deliver(line: string): void {
    if (line.trim() === "") return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.onerror?.(new Error(`MCP server wrote a line that is not JSON: ${line.slice(0, 200)}`));
      return;
    }
    if (!isRecord(message) || message.jsonrpc !== "2.0") {
      this.onerror?.(new Error(`MCP server wrote a non JSON-RPC message: ${line.slice(0, 200)}`));
      return;
    }
    this.onmessage?.(message as unknown as JSONRPCMessage);
  }

  async #readStderr(child: DriverChild): Promise<void> {
    try {
      for await (const chunk of child.stderr) {
        this.#stderr.push(chunk);
        this.#stderrBytes += chunk.length;
        while (this.#stderrBytes - (this.#stderr[0]?.length ?? 0) >= STDERR_TAIL_BYTES) {
          this.#stderrBytes -= this.#stderr.shift()!.length;
        }
      }
    } catch {
      // the pipe broke: the tail so far is what there is
    }
  }

  /** Writes one message as a line. */
  async send(message: JSONRPCMessage): Promise<void> {
    const child = this.#child;
    if (!child || this.#closing) throw new Error("Cannot send to MCP server: not connected");
    await child.writeStdin(this.#encoder.encode(JSON.stringify(message) + "\n"));
  }

  /**
   * Closes stdin, waits up to a second for the server to exit, then ends its process group
   * (SIGTERM, then SIGKILL); resolves once the group is gone.
   */
  close(): Promise<void> {
    const child = this.#child;
    if (!child) return Promise.resolve();
    this.#closing ??= (async () => {
      child.closeStdin();
      await within(child.exited, EXIT_GRACE_MS);
      await this.#endGroup(child);
    })();
    return this.#closing;
  }

  /** Ends what is left of the server's process group (its children outlive a clean exit too). */
  async #endGroup(child: DriverChild): Promise<void> {
    const driver = this.#options.driver ?? processDriver();
    if (driver.signalGroup(child.pid, "SIGTERM") !== "sent") return;
    const deadline = Date.now() + EXIT_GRACE_MS;
    while (Date.now() < deadline) {
      await delay(20);
      if (driver.signalGroup(child.pid, 0) !== "sent") return;
    }
    driver.signalGroup(child.pid, "SIGKILL");
    await within(child.exited, EXIT_GRACE_MS);
  }
}

const DECODER = new TextDecoder();

/** One line's text from its chunks (a final `\r` dropped). */
function lineText(parts: readonly Uint8Array[], bytes: number): string {
  let joined: Uint8Array;
  if (parts.length === 1) joined = parts[0]!;
  else {
    joined = new Uint8Array(bytes);
    let at = 0;
    for (const part of parts) {
      joined.set(part, at);
      at += part.length;
    }
  }
  const text = DECODER.decode(joined);
  return text.endsWith("\r") ? text.slice(0, -1) : text;
}

/** Resolves when `promise` settles or after `ms`, whichever is first; clears its timer. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([promise, new Promise((resolve) => timer = setTimeout(resolve, ms))]);
  } finally {
    clearTimeout(timer);
  }
}
