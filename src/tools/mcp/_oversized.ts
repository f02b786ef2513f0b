/**
 * Private: one JSON-RPC message from an MCP stdio server that grew past the result cap
 * (`mcp_max_result_bytes`). From the cap on, the message is not kept in memory: every byte goes
 * to a spill file, and one pass over the bytes (a small JSON scanner, no parse) keeps what the
 * answer needs: the message's `id`, whether it is an error or a request, `result.isError`, and
 * the start of the text blocks (`result.content[i].text`) up to the cap. {@link
 * OversizedMessage.end} then makes the message delivered in its place: a result whose text is
 * that start plus a note naming the cap and the spill file.
 *
 * @module
 */
import { closeSync, existsSync, mkdtempSync, openSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withCommas } from "../../_internal/text.ts";
import { sizeText } from "../../_internal/size_text.ts";
import { ResponseScanner } from "./_response_scan.ts";

let spillDir: string | null = null;
let spillCount = 0;

/**
 * A new spill file path in a private `bub-mcp-*` folder under the OS tmpdir (made once, and again
 * when it was removed).
 */
export function mcpSpillPath(server: string): string {
  if (spillDir === null || !existsSync(spillDir)) {
    spillDir = mkdtempSync(join(tmpdir(), "bub-mcp-"));
  }
  const safe = server.replace(/[^A-Za-z0-9_-]/g, "_");
  return join(spillDir, `${safe}-${++spillCount}.json`);
}

/** The message being received past the cap. */
export class OversizedMessage {
  #maxBytes: number;
  #path: string;
  #fd: number | null = null;
  #spillError: string | null = null;
  /** Bytes of the message so far. */
  bytes = 0;
  #scanner: ResponseScanner;

  /**
   * Starts a spill file at `path` holding `head` (the message so far).
   *
   * @param path the spill file (created with mode 0600; a failure is reported in the note)
   * @param maxBytes the cap: how much of the text is kept
   * @param head the message's bytes so far, in order
   */
  constructor(path: string, maxBytes: number, head: readonly Uint8Array[]) {
    this.#path = path;
    this.#maxBytes = maxBytes;
    this.#scanner = new ResponseScanner(maxBytes);
    try {
      this.#fd = openSync(path, "wx", 0o600);
    } catch (error) {
      this.#spillError = error instanceof Error ? error.message : String(error);
    }
    for (const chunk of head) this.write(chunk);
  }

  /** Takes the next bytes of the message (without its line end). */
  write(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.bytes += chunk.length;
    if (this.#fd !== null) {
      try {
        let at = 0;
        while (at < chunk.length) at += writeSync(this.#fd, chunk, at, chunk.length - at);
      } catch (error) {
        this.#spillError = `writing failed: ${error instanceof Error ? error.message : error}`;
        this.#closeFile();
      }
    }
    this.#scanner.scan(chunk);
  }

  /**
   * Ends the message: closes the spill file and returns the message to deliver instead, or an
   * error text when it cannot be answered (no `id`, or a request / notification).
   */
  end(): { message: Record<string, unknown> } | { error: string } {
    this.#closeFile();
    const where = this.#spillError === null
      ? `the whole message is in ${this.#path}`
      : `saving it failed: ${this.#spillError}`;
    const size = `${withCommas(this.bytes)} bytes`;
    const scanner = this.#scanner;
    const id = scanner.id();
    if (id === undefined || scanner.topKeys.has("method")) {
      return {
        error: `MCP server wrote a ${size} message past mcp_max_result_bytes (${
          sizeText(this.#maxBytes)
        }) that is not a response; dropped (${where})`,
      };
    }
    if (!scanner.topKeys.has("result")) {
      return {
        message: {
          jsonrpc: "2.0",
          id,
          error: {
            code: -32603,
            message: `the server's ${size} error response passed mcp_max_result_bytes (${
              sizeText(this.#maxBytes)
            }); ${where}`,
          },
        },
      };
    }
    const text = scanner.text();
    const note = `[MCP result cut: the server sent ${size}, past mcp_max_result_bytes (${
      sizeText(this.#maxBytes)
    }); ${
      text === "" ? "no text block starts within it" : "the start of its text is above"
    }; ${where}]`;
    return {
      message: {
        jsonrpc: "2.0",
        id,
        result: {
          content: [{ type: "text", text: text === "" ? note : `${text}\n...${note}` }],
          ...(scanner.isError ? { isError: true } : {}),
        },
      },
    };
  }

  #closeFile(): void {
    if (this.#fd === null) return;
    try {
      closeSync(this.#fd);
    } catch {
      // already closed
    }
    this.#fd = null;
  }
}
