/**
 * Media out through a real gateway: a plugin (written into the gateway's `BUB_HOME` and listed in
 * its `config.yml`) whose `renderOutbound` adds, to a turn whose message asks to
 * {@link SEND_THE_FILES}, an outbound message with a PNG image and a PDF as media items, the way a
 * plugin or tool hands files to a channel.
 *
 * @module
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TempDirs } from "../../cli/_spawn.ts";
import { base64, pdfFile, PNG_BASE64 } from "../../agent/_media_files.ts";

/** The message that makes the plugin send its files. */
export const SEND_THE_FILES = "send me the files";
/** The text of the plugin's message. */
export const FILES_TEXT = "Here are the files.";
/** The PNG the plugin sends (`chart.png`). */
export const CHART_PNG: Uint8Array = Uint8Array.from(atob(PNG_BASE64), (c) => c.charCodeAt(0));
/** The PDF the plugin sends (`report.pdf`). */
export const REPORT_PDF: Uint8Array = pdfFile();

/** Writes the plugin and a `config.yml` loading it (the harness's `setup`). */
export function writeMediaOutPlugin(dirs: TempDirs): void {
  writeFileSync(
    join(dirs.bubHome, "media_out_plugin.mjs"),
    `export default {
  renderOutbound({ message, sessionId }) {
    if (!String(message.content ?? "").includes(${JSON.stringify(SEND_THE_FILES)})) return null;
    return {
      sessionId,
      channel: message.channel,
      chatId: message.chatId,
      outputChannel: message.channel,
      content: ${JSON.stringify(FILES_TEXT)},
      media: [
        { type: "image", mimeType: "image/png", filename: "chart.png",
          url: "data:image/png;base64,${base64(CHART_PNG)}" },
        { type: "document", mimeType: "application/pdf", filename: "report.pdf",
          url: "data:application/pdf;base64,${base64(REPORT_PDF)}" },
      ],
    };
  },
};
`,
  );
  dirs.writeConfig("plugins:\n  - ./media_out_plugin.mjs\n");
}
