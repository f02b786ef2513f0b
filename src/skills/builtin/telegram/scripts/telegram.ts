/**
 * Sends or edits Telegram messages for the `telegram` skill.
 *
 * ```sh
 * <runtime> telegram.ts send --chat-id 42 [--reply-to 7] [--format markdown|html|plain] [--silent] TEXT
 * <runtime> telegram.ts edit --chat-id 42 --message-id 9 [--format ...] TEXT
 * ```
 *
 * TEXT may be several words, or `-` (or nothing) to read standard input. The bot token comes from
 * `--token` or `BUB_TELEGRAM_TOKEN`; `--api-root` (or `BUB_TELEGRAM_API_ROOT`) points at another
 * Bot API server. Markdown is converted to Telegram HTML; if Telegram rejects the markup the text
 * is sent again without formatting. Texts over 4096 characters are sent as several messages.
 * Prints `{"ok":true,"message_ids":[...]}` on success; on failure prints the reason to stderr and
 * exits with status 1.
 *
 * @module
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { markdownToTelegramHtml, splitMessage } from "./_format.ts";

type Format = "markdown" | "html" | "plain";

class TelegramApiError extends Error {
  readonly description: string;
  constructor(method: string, status: number, description: string) {
    super(`Telegram ${method} failed (HTTP ${status}): ${description}`);
    this.description = description;
  }
}

async function call(
  apiRoot: string,
  token: string,
  method: string,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${apiRoot.replace(/\/+$/, "")}/bot${token}/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const data = await response.json().catch(() => ({})) as Record<string, unknown>;
  if (!response.ok || data.ok !== true) {
    throw new TelegramApiError(
      method,
      response.status,
      String(data.description ?? response.statusText),
    );
  }
  return (data.result ?? {}) as Record<string, unknown>;
}

function render(text: string, format: Format): { text: string; parse_mode?: string } {
  if (format === "plain") return { text };
  if (format === "html") return { text, parse_mode: "HTML" };
  return { text: markdownToTelegramHtml(text), parse_mode: "HTML" };
}

async function deliver(
  apiRoot: string,
  token: string,
  method: "sendMessage" | "editMessageText",
  base: Record<string, unknown>,
  text: string,
  format: Format,
): Promise<Record<string, unknown>> {
  try {
    return await call(apiRoot, token, method, { ...base, ...render(text, format) });
  } catch (error) {
    if (error instanceof TelegramApiError && /not modified/i.test(error.description)) return {};
    if (
      format !== "plain" && error instanceof TelegramApiError &&
      /parse entities/i.test(error.description)
    ) {
      return await call(apiRoot, token, method, { ...base, text });
    }
    throw error;
  }
}

async function readText(words: string[]): Promise<string> {
  if (words.length > 0 && !(words.length === 1 && words[0] === "-")) return words.join(" ");
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of process.stdin) {
    text += typeof chunk === "string"
      ? chunk
      : decoder.decode(chunk as Uint8Array, { stream: true });
  }
  return text + decoder.decode();
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      "chat-id": { type: "string" },
      "reply-to": { type: "string" },
      "message-id": { type: "string" },
      format: { type: "string", default: "markdown" },
      silent: { type: "boolean", default: false },
      token: { type: "string" },
      "api-root": { type: "string" },
    },
  });
  const [command, ...words] = positionals;
  if (command !== "send" && command !== "edit") {
    throw new Error(`Unknown command ${JSON.stringify(command ?? "")}: expected "send" or "edit"`);
  }
  const token = values.token || process.env.BUB_TELEGRAM_TOKEN || "";
  if (!token) throw new Error("No bot token: pass --token or set BUB_TELEGRAM_TOKEN");
  const apiRoot = values["api-root"] || process.env.BUB_TELEGRAM_API_ROOT ||
    "https://api.telegram.org";
  const chatId = values["chat-id"];
  if (!chatId) throw new Error("Missing --chat-id");
  const format = values.format as Format;
  if (!["markdown", "html", "plain"].includes(format)) {
    throw new Error(`Invalid --format ${JSON.stringify(format)}: expected markdown, html or plain`);
  }
  const text = (await readText(words)).trim();
  if (!text) throw new Error("Nothing to send: the text is empty");

  if (command === "edit") {
    const messageId = values["message-id"];
    if (!messageId) throw new Error("Missing --message-id for edit");
    const [first, ...others] = splitMessage(text);
    if (others.length > 0) {
      throw new Error(`Text too long to edit: ${text.length} characters (limit 4096)`);
    }
    await deliver(
      apiRoot,
      token,
      "editMessageText",
      {
        chat_id: chatId,
        message_id: Number(messageId),
      },
      first!,
      format,
    );
    process.stdout.write(`${JSON.stringify({ ok: true, message_ids: [Number(messageId)] })}\n`);
    return;
  }

  const ids: number[] = [];
  const chunks = splitMessage(text, format === "plain" ? 4096 : 3500);
  for (const [index, chunk] of chunks.entries()) {
    const base: Record<string, unknown> = {
      chat_id: chatId,
      disable_notification: values.silent,
      link_preview_options: { is_disabled: true },
    };
    if (index === 0 && values["reply-to"]) {
      base.reply_parameters = {
        message_id: Number(values["reply-to"]),
        allow_sending_without_reply: true,
      };
    }
    const result = await deliver(apiRoot, token, "sendMessage", base, chunk, format);
    if (typeof result.message_id === "number") ids.push(result.message_id);
  }
  process.stdout.write(`${JSON.stringify({ ok: true, message_ids: ids })}\n`);
}

try {
  await main(process.argv.slice(2));
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`${message}\n`);
  process.exitCode = 1;
}
