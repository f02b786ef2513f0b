/**
 * Posting files on Discord through `api_base`: the adapter's `postMessageWithFiles` sends its
 * multipart request to discord.com whatever `apiUrl` says, so a configured proxy (or a fake)
 * would be bypassed; {@link postMessageWithFiles} is the same request against Bub's REST base.
 *
 * @module
 */
import type { FileUpload } from "chat";

/** What the adapter's `postMessageWithFiles` returns. */
interface Posted {
  id: string;
  threadId: string;
  raw: unknown;
}

/** The adapter's `postMessageWithFiles`, posting to `base` (`…/api/v10`) with the bot token. */
export function postMessageWithFiles(
  base: string,
  botToken: string,
): (channelId: string, threadId: string, payload: unknown, files: FileUpload[]) => Promise<Posted> {
  return async (channelId, threadId, payload, files) => {
    const form = new FormData();
    form.append("payload_json", JSON.stringify(payload));
    for (const [index, file] of files.entries()) {
      const data = file.data instanceof Blob ? file.data : new Blob([new Uint8Array(file.data)]);
      const blob = new Blob([data], { type: file.mimeType || "application/octet-stream" });
      form.append(`files[${index}]`, blob, file.filename);
    }
    const response = await fetch(`${base}/channels/${channelId}/messages`, {
      method: "POST",
      headers: { authorization: `Bot ${botToken}` },
      body: form,
    });
    if (!response.ok) {
      throw new Error(
        `Failed to post files on Discord: ${response.status} ${await response.text()}`,
      );
    }
    const result = await response.json() as { id: string };
    return { id: result.id, threadId, raw: result };
  };
}
