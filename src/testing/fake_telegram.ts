/**
 * `FakeTelegramServer`: a local Telegram Bot API on 127.0.0.1 for tests. It answers the methods a
 * long-polling bot calls, queues updates pushed by the test, serves uploaded files and records
 * every call. This file is the test's side: building and pushing messages, updates and button
 * presses, storing files, waiting for calls; the Bot API's answers are `_fake_telegram_api.ts`,
 * the update queue and its long poll `_fake_telegram_updates.ts`.
 *
 * @module
 */
import { type LoopbackServer, startFakeServer } from "./_http.ts";
import type {
  FakeChat,
  FakeFile,
  FakeMessageOptions,
  FakeTelegramCall,
  FakeTelegramServerOptions,
  FakeUser,
  WaitForCallsOptions,
} from "./_fake_telegram_types.ts";
import { SentMessages } from "./_fake_telegram_sent.ts";
import { UpdateQueue } from "./_fake_telegram_updates.ts";
import { type BotApiState, serveBotApi } from "./_fake_telegram_api.ts";

const DEFAULT_TOKEN = "123456:TEST-TOKEN";

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
  readonly #updates = new UpdateQueue();
  #nextMessageId = 1;
  #nextFileId = 1;
  #files = new Map<string, { file: FakeFile; data: Uint8Array }>();
  readonly #sent: SentMessages;
  readonly #api: BotApiState;
  #nextCallbackId = 1;
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
    this.#api = {
      token: this.token,
      bot: this.bot,
      fileDownloadStatus: () => this.fileDownloadStatus,
      files: this.#files,
      sent: this.#sent,
      updates: this.#updates,
      record: (method, params) => this.#record(method, params),
    };
  }

  /** Starts a server on a free port of 127.0.0.1. */
  static async start(options: FakeTelegramServerOptions = {}): Promise<FakeTelegramServer> {
    return await startFakeServer({
      create: (http) => new FakeTelegramServer(http, options),
      handle: (telegram, req, res) => serveBotApi(telegram.#api, req, res),
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
    return this.#updates.push(update);
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
      this.#updates.close();
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
}
