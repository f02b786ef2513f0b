/**
 * Private: the fake Bot API's HTTP side — file downloads (`/file/bot<token>/…`), the token check,
 * each call's parameters recorded, and what every Bot API method answers (`getMe`, `getUpdates`,
 * `sendMessage`, `editMessageText`, `getFile`, …) in Telegram's `{ ok, result }` envelope. The
 * test-facing side (pushing updates, waiting for calls) is `fake_telegram.ts`.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { parseParams, readBody, reply } from "./_http.ts";
import type { FakeFile, FakeUser } from "./_fake_telegram_types.ts";
import { badRequest, type MethodResult, type SentMessages } from "./_fake_telegram_sent.ts";
import type { UpdateQueue } from "./_fake_telegram_updates.ts";

/** What the Bot API reads and changes of the fake. */
export interface BotApiState {
  readonly token: string;
  readonly bot: FakeUser;
  /** The status every file download answers instead of the file, or null (read per request). */
  fileDownloadStatus(): number | null;
  readonly files: ReadonlyMap<string, { file: FakeFile; data: Uint8Array }>;
  readonly sent: SentMessages;
  readonly updates: UpdateQueue;
  /** Records a Bot API call (not a file download). */
  record(method: string, params: Record<string, unknown>): void;
}

/** Answers one request to the fake Bot API. */
export async function serveBotApi(
  state: BotApiState,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const body = await readBody(req);
  const filePrefix = `/file/bot${state.token}/`;
  if (url.pathname.startsWith(filePrefix)) {
    const status = state.fileDownloadStatus();
    if (status !== null) return reply(res, status, { ok: false, description: "download failed" });
    const path = decodeURIComponent(url.pathname.slice(filePrefix.length));
    const entry = [...state.files.values()].find((item) => item.file.file_path === path);
    if (!entry) return reply(res, 404, { ok: false, error_code: 404, description: "Not Found" });
    res.writeHead(200, { "content-type": "application/octet-stream" });
    res.end(entry.data);
    return;
  }
  const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
  if (!match || match[1] !== state.token) {
    return reply(res, 401, { ok: false, error_code: 401, description: "Unauthorized" });
  }
  const method = match[2]!;
  let params: Record<string, unknown>;
  try {
    params = parseParams(req, body, url);
  } catch {
    return reply(res, 400, {
      ok: false,
      error_code: 400,
      description: "Bad Request: invalid JSON",
    });
  }
  state.record(method, params);
  const result = await answer(state, method, params, res);
  if ("error" in result) {
    return reply(res, result.error.code, { ok: false, ...result.error.body });
  }
  reply(res, 200, { ok: true, result: result.ok });
}

async function answer(
  state: BotApiState,
  method: string,
  params: Record<string, unknown>,
  res: ServerResponse,
): Promise<MethodResult> {
  switch (method) {
    case "getMe":
      return { ok: { ...state.bot, can_join_groups: true, can_read_all_group_messages: false } };
    case "deleteWebhook":
      if (params.drop_pending_updates === true || params.drop_pending_updates === "true") {
        state.updates.clear();
      }
      return { ok: true };
    case "getUpdates":
      return { ok: await state.updates.poll(params, res) };
    case "sendMessage":
      return state.sent.send(params);
    case "sendChatAction":
      return { ok: true };
    case "answerCallbackQuery":
      return typeof params.callback_query_id === "string" && params.callback_query_id !== ""
        ? { ok: true }
        : badRequest("callback_query_id is empty");
    case "editMessageText":
    case "editMessageReplyMarkup":
      return state.sent.edit(method, params);
    case "getFile": {
      const entry = state.files.get(String(params.file_id));
      return entry ? { ok: entry.file } : badRequest("invalid file_id");
    }
    default:
      return {
        error: {
          code: 404,
          body: { error_code: 404, description: "Not Found: method not found" },
        },
      };
  }
}
