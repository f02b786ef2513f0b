/**
 * `FakeTelegramServer`: a local Telegram Bot API on 127.0.0.1 for tests. It answers the methods a
 * long-polling bot calls, queues updates pushed by the test, serves uploaded files and records
 * every call.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type LoopbackServer, parseParams, readBody, reply, startFakeServer } from "./_http.ts";
import type {
  FakeChat,
  FakeFile,
  FakeMessageOptions,
  FakeTelegramCall,
  FakeTelegramServerOptions,
  FakeUser,
  WaitForCallsOptions,
} from "./_fake_telegram_types.ts";
import { badRequest, type MethodResult, SentMessages } from "./_fake_telegram_sent.ts";

const DEFAULT_TOKEN = "123456:TEST-TOKEN";

interface PollWaiter {
  wake(): void;
}

interface CallWaiter {
  check(): void;
}

/**
 * A fake Telegram Bot API server. Point a bot at {@link FakeTelegramServer.apiRoot} with the
 * server's {@link FakeTelegramServer.token}, push updates, and assert the recorded calls.
 *
 * @example A bot receives a message and the test sees its reply
 * ```ts ignore
 * import { FakeTelegramServer } from "@bub/core/testing";
 * await using server = await FakeTelegramServer.start();
 * // start a bot with { token: server.token, apiRoot: server.apiRoot }, then:
 * await server.waitForCalls("getUpdates");
 * server.pushMessage({ text: "hello" });
 * const [sent] = await server.waitForCalls("sendMessage");
 * console.log(sent?.params.text);
 * ```
 */
export class FakeTelegramServer implements AsyncDisposable {
  /** The token the server accepts. */
  readonly token: string;
  /** The bot's own user (returned by `getMe`). */
  readonly bot: FakeUser;
  /** The default sender: a human with a username. */
  readonly user: FakeUser = {
    id: 1001,
    is_bot: false,
    first_name: "Ada",
    last_name: "Lovelace",
    username: "ada",
  };
  /**
   * When set, every file download (`/file/bot<token>/...`) answers with this HTTP status (e.g.
   * 500) instead of the file. Settable at any time.
   */
  fileDownloadStatus: number | null;
  /** Every Bot API call received, in order (file downloads excluded). */
  readonly calls: FakeTelegramCall[] = [];
  #http: LoopbackServer;
  #updates: Array<Record<string, unknown>> = [];
  #nextUpdateId = 1;
  #nextMessageId = 1;
  #nextFileId = 1;
  #files = new Map<string, { file: FakeFile; data: Uint8Array }>();
  readonly #sent: SentMessages;
  #nextCallbackId = 1;
  #pollWaiters = new Set<PollWaiter>();
  #callWaiters = new Set<CallWaiter>();
  #closed: Promise<void> | null = null;

  private constructor(http: LoopbackServer, options: FakeTelegramServerOptions) {
    this.#http = http;
    this.token = options.token ?? DEFAULT_TOKEN;
    this.fileDownloadStatus = options.fileDownloadStatus ?? null;
    this.bot = {
      id: options.botId ?? 777000,
      is_bot: true,
      first_name: "Bub",
      username: options.botUsername ?? "bub_test_bot",
    };
    this.#sent = new SentMessages(() => this.#nextMessageId++, this.bot);
  }

  /** Starts a server on a free port of 127.0.0.1. */
  static async start(options: FakeTelegramServerOptions = {}): Promise<FakeTelegramServer> {
    return await startFakeServer({
      create: (http) => new FakeTelegramServer(http, options),
      handle: (telegram, req, res) => telegram.#handle(req, res),
      errorBody: (error) => ({ ok: false, error_code: 500, description: String(error) }),
    });
  }

  /** The API root to give the bot: `http://127.0.0.1:<port>`. */
  get apiRoot(): string {
    return `http://127.0.0.1:${this.#http.port}`;
  }

  /** Updates queued and not yet confirmed by the bot. */
  get pendingUpdates(): number {
    return this.#updates.length;
  }

  /** Recorded calls of one method. */
  callsOf(method: string): FakeTelegramCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  /** A user (a human unless `isBot`). */
  makeUser(id: number, username?: string, firstName = `User${id}`): FakeUser {
    return { id, is_bot: false, first_name: firstName, ...(username ? { username } : {}) };
  }

  /** The private chat with `user` (default {@link FakeTelegramServer.user}). */
  privateChat(user: FakeUser = this.user): FakeChat {
    return { id: user.id, type: "private", first_name: user.first_name, username: user.username };
  }

  /** A group chat (negative id; `supergroup` when asked). */
  groupChat(id = -100200, type: "group" | "supergroup" = "group"): FakeChat {
    return { id, type, title: "Test group" };
  }

  /**
   * Builds a message (without queueing it): `fields` are the content (`text`, `photo`, `caption`,
   * `entities`, …); `message_id`, `date`, `chat` and `from` are filled in.
   */
  buildMessage(
    fields: Record<string, unknown>,
    options: FakeMessageOptions = {},
  ): Record<string, unknown> {
    const from = options.from === undefined ? this.user : options.from;
    const chat = options.chat ?? this.privateChat(from ?? this.user);
    return {
      message_id: this.#nextMessageId++,
      date: Math.floor(Date.now() / 1000),
      chat,
      ...(from ? { from } : {}),
      ...(options.replyTo ? { reply_to_message: options.replyTo } : {}),
      ...fields,
    };
  }

  /** Builds a message and queues it as an update; returns the message. */
  pushMessage(
    fields: Record<string, unknown>,
    options: FakeMessageOptions = {},
  ): Record<string, unknown> {
    const message = this.buildMessage(fields, options);
    this.pushUpdate({ message });
    return message;
  }

  /**
   * Queues a text message and returns it. Like Telegram, a leading `/command` gets a
   * `bot_command` entity unless `entities` are given.
   */
  pushText(
    text: string,
    options: FakeMessageOptions & { entities?: unknown[] } = {},
  ): Record<string, unknown> {
    const { entities, ...rest } = options;
    const command = /^\/[A-Za-z0-9_]+(@[A-Za-z0-9_]+)?/.exec(text);
    const auto = command ? [{ type: "bot_command", offset: 0, length: command[0].length }] : null;
    const list = entities ?? auto;
    return this.pushMessage({ text, ...(list ? { entities: list } : {}) }, rest);
  }

  /**
   * Queues a raw update (any shape: malformed ones too) and wakes pending `getUpdates`; an
   * `update_id` is assigned when absent. Returns the update id.
   */
  pushUpdate(update: Record<string, unknown>): number {
    const id = typeof update.update_id === "number" ? update.update_id : this.#nextUpdateId;
    this.#nextUpdateId = Math.max(this.#nextUpdateId, id + 1);
    this.#updates.push({ ...update, update_id: id });
    for (const waiter of [...this.#pollWaiters]) waiter.wake();
    return id;
  }

  /**
   * The messages the bot sent to `chatId`, in order, as they are now (edits applied): each with
   * its `message_id`, `text` and `reply_markup` (an inline keyboard, when it has one).
   */
  sentMessages(chatId: number): Record<string, unknown>[] {
    return this.#sent.ofChat(chatId);
  }

  /**
   * Queues a `callback_query` update: `from` pressed the inline button carrying `data` under
   * the bot's message `messageId` (as it is now, see {@link sentMessages}). Returns the
   * callback query's id (what `answerCallbackQuery` must name).
   */
  pushCallbackQuery(
    messageId: number,
    data: string,
    options: { from?: FakeUser } = {},
  ): string {
    const message = this.#sent.get(messageId);
    if (!message) throw new RangeError(`No message ${messageId} was sent by the bot`);
    const id = `cbq-${this.#nextCallbackId++}`;
    this.pushUpdate({
      callback_query: {
        id,
        from: options.from ?? this.user,
        message: structuredClone(message),
        chat_instance: `instance-${(message.chat as { id: number }).id}`,
        data,
      },
    });
    return id;
  }

  /** Stores bytes as a downloadable file; use the returned `file_id` in messages. */
  addFile(data: Uint8Array, filePath?: string): FakeFile {
    const n = this.#nextFileId++;
    const file: FakeFile = {
      file_id: `file-${n}`,
      file_unique_id: `unique-${n}`,
      file_size: data.byteLength,
      file_path: filePath ?? `documents/file_${n}.bin`,
    };
    this.#files.set(file.file_id, { file, data });
    return file;
  }

  /**
   * Resolves with the first `count` recorded calls of `method` (matching `where`) once there are
   * that many; rejects on timeout with the list of calls seen.
   */
  waitForCalls(
    method: string,
    count = 1,
    options: WaitForCallsOptions = {},
  ): Promise<FakeTelegramCall[]> {
    const matching = () =>
      this.calls.filter((call) => call.method === method && (options.where?.(call) ?? true));
    return new Promise((resolve, reject) => {
      const done = (error: Error | null) => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        this.#callWaiters.delete(waiter);
        if (error) reject(error);
        else resolve(matching().slice(0, count));
      };
      const waiter: CallWaiter = { check: () => matching().length >= count && done(null) };
      const onAbort = () => done(new Error(`Stopped waiting for ${method}: aborted`));
      const timer = setTimeout(() => {
        const seen = this.calls.map((call) => call.method).join(", ") || "none";
        done(new Error(`Timed out waiting for ${count} ${method} call(s); calls seen: ${seen}`));
      }, options.timeoutMs ?? 10_000);
      options.signal?.addEventListener("abort", onAbort, { once: true });
      this.#callWaiters.add(waiter);
      waiter.check();
    });
  }

  /** Stops listening, ends pending long polls and drops connections. Idempotent. */
  close(): Promise<void> {
    this.#closed ??= (() => {
      for (const waiter of [...this.#pollWaiters]) waiter.wake();
      return this.#http.close();
    })();
    return this.#closed;
  }

  /** Same as {@link FakeTelegramServer.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #record(method: string, params: Record<string, unknown>): void {
    this.calls.push({ method, params });
    for (const waiter of [...this.#callWaiters]) waiter.check();
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.apiRoot);
    const body = await readBody(req);
    const filePrefix = `/file/bot${this.token}/`;
    if (url.pathname.startsWith(filePrefix)) {
      if (this.fileDownloadStatus !== null) {
        return reply(res, this.fileDownloadStatus, { ok: false, description: "download failed" });
      }
      const path = decodeURIComponent(url.pathname.slice(filePrefix.length));
      const entry = [...this.#files.values()].find((item) => item.file.file_path === path);
      if (!entry) return reply(res, 404, { ok: false, error_code: 404, description: "Not Found" });
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.end(entry.data);
      return;
    }
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    if (!match || match[1] !== this.token) {
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
    this.#record(method, params);
    const result = await this.#answer(method, params, res);
    if (result === undefined) return;
    if ("error" in result) {
      return reply(res, result.error.code, { ok: false, ...result.error.body });
    }
    reply(res, 200, { ok: true, result: result.ok });
  }

  async #answer(
    method: string,
    params: Record<string, unknown>,
    res: ServerResponse,
  ): Promise<MethodResult | undefined> {
    switch (method) {
      case "getMe":
        return { ok: { ...this.bot, can_join_groups: true, can_read_all_group_messages: false } };
      case "deleteWebhook":
        if (params.drop_pending_updates === true || params.drop_pending_updates === "true") {
          this.#updates = [];
        }
        return { ok: true };
      case "getUpdates":
        return { ok: await this.#getUpdates(params, res) };
      case "sendMessage":
        return this.#sent.send(params);
      case "sendChatAction":
        return { ok: true };
      case "answerCallbackQuery":
        return typeof params.callback_query_id === "string" && params.callback_query_id !== ""
          ? { ok: true }
          : badRequest("callback_query_id is empty");
      case "editMessageText":
      case "editMessageReplyMarkup":
        return this.#sent.edit(method, params);
      case "getFile": {
        const entry = this.#files.get(String(params.file_id));
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

  async #getUpdates(params: Record<string, unknown>, res: ServerResponse): Promise<unknown[]> {
    const offset = Number(params.offset ?? 0);
    if (offset > 0) {
      this.#updates = this.#updates.filter((update) => Number(update.update_id) >= offset);
    }
    const limit = Math.min(Math.max(Number(params.limit ?? 100) || 100, 1), 100);
    const timeoutSeconds = Number(params.timeout ?? 0) || 0;
    if (this.#updates.length === 0 && timeoutSeconds > 0 && this.#closed === null) {
      await new Promise<void>((resolve) => {
        const waiter: PollWaiter = {
          wake: () => {
            clearTimeout(timer);
            res.off("close", waiter.wake);
            this.#pollWaiters.delete(waiter);
            resolve();
          },
        };
        const timer = setTimeout(waiter.wake, timeoutSeconds * 1000);
        res.on("close", waiter.wake);
        this.#pollWaiters.add(waiter);
      });
    }
    return this.#updates.slice(0, limit);
  }
}
