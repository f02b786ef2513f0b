/**
 * A plugin for the chat gateway tests (loaded through `plugins:` in config.yml): a turn whose
 * message asks to {@link SEND_THE_FILES} also answers with an outbound message carrying media —
 * an image and a PDF (bytes), a file over the media limit, and an image given as an https URL —
 * the way a tool or plugin hands files to a channel.
 */
import { base64, pdfFile, PNG_BASE64 } from "../../agent/_media_files.ts";

/** The message that makes a turn answer with media. */
export const SEND_THE_FILES = "send the files";
/** The text of that answer. */
export const FILES_TEXT = "Here are the files.";
/** The size of the file over the media limit. */
export const HUGE_BYTES: number = 3 * 1024 * 1024;
/** The image given as a URL (a link, never fetched). */
export const CHART_URL = "https://charts.example.com/chart.png";

export default {
  name: "media-reply-test",
  renderOutbound(
    { message, sessionId }: {
      message: { channel?: string; chatId?: string; content?: string };
      sessionId: string;
    },
  ): Record<string, unknown> | null {
    if (!String(message?.content ?? "").includes(SEND_THE_FILES)) return null;
    return {
      sessionId,
      channel: message.channel,
      chatId: message.chatId,
      outputChannel: message.channel,
      content: FILES_TEXT,
      media: [
        {
          type: "image",
          mimeType: "image/png",
          filename: "cat.png",
          url: `data:image/png;base64,${PNG_BASE64}`,
        },
        {
          type: "document",
          mimeType: "application/pdf",
          filename: "report.pdf",
          url: `data:application/pdf;base64,${base64(pdfFile())}`,
        },
        {
          type: "document",
          mimeType: "application/octet-stream",
          filename: "huge.bin",
          url: null,
          dataFetcher: () => Promise.resolve(new Uint8Array(HUGE_BYTES).fill(1)),
        },
        { type: "image", mimeType: "image/png", filename: "chart.png", url: CHART_URL },
      ],
    };
  },
};
