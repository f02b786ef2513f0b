/**
 * Private: the file side of the fake Teams. It holds the bytes users "send" a bot — an image
 * pasted into a message, served by the Bot Framework attachment service under the Bot Connector
 * (`GET /teams/v3/attachments/<id>/views/original`, which wants the bot's token like the rest of
 * it), and a file sent in a personal chat, served by a pre-authorized download link
 * (`GET /files/<id>?tempauth=<t>`, no token, as OneDrive's) — and receives the files a bot
 * uploads after a file consent (`PUT /upload/<id>`, an upload session URL: no token).
 *
 * @module
 */
import type { Buffer } from "node:buffer";
import type { ServerResponse } from "node:http";

/**
 * A file a bot uploaded into an upload session of the fake.
 *
 * @example
 * ```ts
 * import type { FakeTeamsUpload } from "@bub/core/testing";
 * const upload: FakeTeamsUpload = {
 *   name: "report.pdf", data: new Uint8Array([1]), contentRange: "bytes 0-0/1", authorization: "",
 * };
 * ```
 */
export interface FakeTeamsUpload {
  /** The file name the consent named. */
  readonly name: string;
  /** The bytes received. */
  readonly data: Uint8Array;
  /** The request's `Content-Range`. */
  readonly contentRange: string;
  /** The request's `Authorization` (an upload session wants none). */
  readonly authorization: string;
}

const ATTACHMENT = /^\/teams\/v3\/attachments\/([^/]+)\/views\/original$/;
const DOWNLOAD = /^\/files\/([^/]+)$/;
const UPLOAD = /^\/upload\/([^/]+)$/;

/** The files of the fake Teams. */
export class TeamsFiles {
  #next = 1;
  #stored = new Map<string, { data: Uint8Array; contentType: string; tempauth: string }>();
  #sessions = new Map<string, string>();
  /** The uploads received, by session id. */
  readonly uploads: Map<string, FakeTeamsUpload> = new Map();

  /** Stores `data`; its id. */
  add(data: Uint8Array, contentType: string): { id: string; tempauth: string } {
    const id = `f${this.#next++}`;
    const tempauth = crypto.randomUUID();
    this.#stored.set(id, { data, contentType, tempauth });
    return { id, tempauth };
  }

  /** An inline image attachment on the attachment service of `serviceUrl`. */
  inlineImage(serviceUrl: string, data: Uint8Array, contentType: string): Record<string, unknown> {
    const { id } = this.add(data, contentType);
    return { contentType, contentUrl: `${serviceUrl}v3/attachments/${id}/views/original` };
  }

  /** A personal chat's file attachment, downloadable from `apiBase` without a token. */
  fileDownload(
    apiBase: string,
    name: string,
    data: Uint8Array,
    fileType: string,
  ): Record<string, unknown> {
    const { id, tempauth } = this.add(data, "application/octet-stream");
    return {
      contentType: "application/vnd.microsoft.teams.file.download.info",
      contentUrl: `https://contoso-my.sharepoint.com/personal/user/Documents/${name}`,
      name,
      content: {
        downloadUrl: `${apiBase}/files/${id}?tempauth=${tempauth}`,
        uniqueId: crypto.randomUUID(),
        fileType,
      },
    };
  }

  /**
   * The answered card and, when accepted, the upload info (a fresh upload session at `apiBase`)
   * of an answer to the file consent card of `card`.
   */
  consent(
    apiBase: string,
    card: { id: string; attachments: { contentType?: string }[] },
    action: "accept" | "decline",
  ): {
    answered: { messageId: string; context: unknown };
    upload: Record<string, unknown> | null;
  } {
    const consent = card.attachments.find((a) =>
      a.contentType === "application/vnd.microsoft.teams.card.file.consent"
    ) as { name?: string; content?: { acceptContext?: unknown } } | undefined;
    const name = consent?.name ?? "file";
    const session = `u${this.#next++}`;
    this.#sessions.set(session, name);
    return {
      answered: { messageId: card.id, context: consent?.content?.acceptContext },
      upload: action === "accept"
        ? {
          name,
          uploadUrl: `${apiBase}/upload/${session}`,
          contentUrl: `https://contoso-my.sharepoint.com/personal/user/Documents/${name}`,
          uniqueId: crypto.randomUUID(),
          fileType: name.split(".").pop() ?? "",
        }
        : null,
    };
  }

  /**
   * The answer to a request of the file side that needs no token (a download link, an upload
   * session), else null.
   */
  unauthenticated(
    verb: string,
    url: URL,
    body: Buffer,
    headers: { authorization: string; contentRange: string },
  ): [number, string, Uint8Array | string] | null {
    const download = DOWNLOAD.exec(url.pathname);
    if (download && verb === "GET") {
      const file = this.#stored.get(download[1]!);
      if (!file || url.searchParams.get("tempauth") !== file.tempauth) {
        return [403, "text/plain", "forbidden"];
      }
      return [200, file.contentType, file.data];
    }
    const upload = UPLOAD.exec(url.pathname);
    if (upload && verb === "PUT") {
      const name = this.#sessions.get(upload[1]!);
      if (name === undefined) return [404, "text/plain", "no such upload session"];
      this.uploads.set(upload[1]!, {
        name,
        data: new Uint8Array(body),
        contentRange: headers.contentRange,
        authorization: headers.authorization,
      });
      return [201, "application/json", JSON.stringify({ id: upload[1], name })];
    }
    return null;
  }

  /** The answer to an authorized request of the attachment service, else null. */
  attachment(verb: string, url: URL): [number, string, Uint8Array | string] | null {
    const match = ATTACHMENT.exec(url.pathname);
    if (!match || verb !== "GET") return null;
    const file = this.#stored.get(match[1]!);
    return file ? [200, file.contentType, file.data] : [404, "text/plain", "not found"];
  }
}

/** Answers with a status, a content type and a body from {@link TeamsFiles}. */
export function sendFile(
  res: ServerResponse,
  [status, type, body]: [number, string, Uint8Array | string],
): void {
  res.writeHead(status, { "content-type": type });
  res.end(body);
}
