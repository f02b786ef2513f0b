/**
 * Private: the files a fake chat platform serves (attachments of its messages) and the ones it
 * receives by PUT (signed storage uploads), for the GitHub and Linear fakes.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { reply } from "./_http.ts";

/** A file a fake holds. */
export interface FakeHeldFile {
  /** Its file name. */
  readonly name: string;
  /** Its MIME type. */
  readonly mimeType: string;
  /** Its bytes. */
  readonly data: Uint8Array;
}

/**
 * A file a fake received by PUT (Linear's signed storage upload).
 *
 * @example
 * ```ts
 * import type { FakePutFile } from "@bub/core/testing";
 * const put: FakePutFile = {
 *   path: "/storage/1",
 *   headers: { "content-type": "image/png" },
 *   data: new Uint8Array([137, 80, 78, 71]),
 * };
 * ```
 */
export interface FakePutFile {
  /** The request path. */
  readonly path: string;
  /** The request headers (lower-case names). */
  readonly headers: Record<string, string>;
  /** The bytes. */
  readonly data: Uint8Array;
}

/** Files by id, served by a fake and received by it. */
export class FakeFiles {
  readonly #files = new Map<string, FakeHeldFile>();
  /** The PUT requests received, in order. */
  readonly puts: FakePutFile[] = [];

  /** Holds `file` under `id`. */
  set(id: string, file: FakeHeldFile): void {
    this.#files.set(id, file);
  }

  /** The file held under `id`. */
  get(id: string): FakeHeldFile | undefined {
    return this.#files.get(id);
  }

  /** Answers with the bytes of the file `id` (its MIME type), or 404. */
  serve(res: ServerResponse, id: string): void {
    const file = this.#files.get(id);
    if (!file) return reply(res, 404, { message: "Not Found" });
    res.writeHead(200, {
      "content-type": file.mimeType,
      "content-length": String(file.data.byteLength),
    });
    res.end(file.data);
  }

  /** Records a PUT of `body` to `path`. */
  receive(req: IncomingMessage, path: string, body: Uint8Array): FakePutFile {
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers[key] = Array.isArray(value) ? value.join(", ") : value;
    }
    const put = { path, headers, data: new Uint8Array(body) };
    this.puts.push(put);
    return put;
  }
}
