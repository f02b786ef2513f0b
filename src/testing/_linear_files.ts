/**
 * Private: the file storage of the fake Linear. Uploads in comments are served at
 * `/uploads/<organization>/<id>` to the API key only (as `uploads.linear.app` does); the
 * `fileUpload` mutation answers a signed upload URL (`/storage/<id>?signature=…`), the headers to
 * send and the asset URL; a PUT there stores the bytes, which the asset URL serves afterwards.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { reply } from "./_http.ts";
import { FakeFiles, type FakePutFile } from "./_fake_files.ts";
import type { FakeCallLog } from "./_fake_calls.ts";

/** The header `fileUpload` asks the upload to carry (a storage host's signed header). */
export const UPLOAD_HEADER = { key: "x-goog-meta-linear", value: "fake-upload" } as const;

/** The fake Linear's files (see the module doc). */
export class FakeLinearFiles {
  readonly #files = new FakeFiles();
  readonly #pending = new Map<string, { filename: string; contentType: string }>();
  readonly #origin: () => string;
  readonly #organizationId: string;

  /** Creates the storage of `origin()` (the fake's `http://127.0.0.1:<port>`). */
  constructor(origin: () => string, organizationId: string) {
    this.#origin = origin;
    this.#organizationId = organizationId;
  }

  /** The PUT uploads received. */
  get puts(): readonly FakePutFile[] {
    return this.#files.puts;
  }

  /** Holds an upload and returns its URL. */
  add(name: string, mimeType: string, data: Uint8Array): string {
    const id = crypto.randomUUID();
    this.#files.set(id, { name, mimeType, data });
    return this.#assetUrl(id);
  }

  #assetUrl(id: string): string {
    return `${this.#origin()}/uploads/${this.#organizationId}/${id}`;
  }

  /** The `fileUpload` answer for `variables`. */
  fileUpload(variables: Record<string, unknown>): Record<string, unknown> {
    const id = crypto.randomUUID();
    const filename = String(variables.filename ?? "");
    const contentType = String(variables.contentType ?? "");
    this.#pending.set(id, { filename, contentType });
    return {
      __typename: "UploadPayload",
      lastSyncId: 1,
      success: true,
      uploadFile: {
        __typename: "UploadFile",
        assetUrl: this.#assetUrl(id),
        contentType,
        filename,
        size: Number(variables.size ?? 0),
        uploadUrl: `${this.#origin()}/storage/${id}?signature=signed-${id}`,
        headers: [{ __typename: "UploadFileHeader", ...UPLOAD_HEADER }],
        metaData: null,
      },
    };
  }

  /**
   * Answers a file request (`GET /uploads/…` with the API key, `PUT /storage/…` as signed);
   * false when `url` is neither.
   */
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    body: Uint8Array,
    context: { log: FakeCallLog; apiKey: string },
  ): boolean {
    const authorization = String(req.headers.authorization ?? "");
    const upload = /^\/uploads\/[^/]+\/([^/]+)$/.exec(url.pathname);
    if (upload && req.method === "GET") {
      context.log.record({ method: "upload", params: { path: url.pathname }, authorization });
      if (authorization !== context.apiKey) reply(res, 401, { message: "Unauthorized" });
      else this.#files.serve(res, upload[1]!);
      return true;
    }
    const stored = /^\/storage\/([^/]+)$/.exec(url.pathname);
    if (stored && req.method === "PUT") {
      context.log.record({ method: "storage", params: { path: url.pathname }, authorization });
      const pending = this.#pending.get(stored[1]!);
      if (!pending || url.searchParams.get("signature") !== `signed-${stored[1]}`) {
        reply(res, 403, { message: "Bad signature" });
        return true;
      }
      this.#files.receive(req, url.pathname, body);
      this.#files.set(stored[1]!, {
        name: pending.filename,
        mimeType: pending.contentType,
        data: body,
      });
      res.writeHead(200).end();
      return true;
    }
    return false;
  }
}
