/** Types of `FakeTelegramServer`. @module */

export interface FakeUser {
  /** The user id. */
  id: number;
  /** True for bots. */
  is_bot: boolean;
  /** First name. */
  first_name: string;
  /** Last name. */
  last_name?: string;
  /** Username without `@`. */
  username?: string;
}

/** A Telegram chat as the fake builds it. */
export interface FakeChat {
  /** The chat id (negative for groups). */
  id: number;
  /** The chat type. */
  type: "private" | "group" | "supergroup" | "channel";
  /** Group title. */
  title?: string;
  /** Username of a private chat. */
  username?: string;
  /** First name of a private chat. */
  first_name?: string;
}

/** A file the fake serves through `getFile` and `/file/bot<token>/<path>`. */
export interface FakeFile {
  /** The id to put in messages and pass to `getFile`. */
  file_id: string;
  /** A stable unique id. */
  file_unique_id: string;
  /** Size in bytes. */
  file_size: number;
  /** Path under `/file/bot<token>/`. */
  file_path: string;
}

/** One recorded Bot API call. */
export interface FakeTelegramCall {
  /** The method name, e.g. `sendMessage`. */
  method: string;
  /** The parameters as sent (JSON body, form or query). */
  params: Record<string, unknown>;
}

/** Options of {@link FakeTelegramServer.start}. */
export interface FakeTelegramServerOptions {
  /** The bot token the server accepts. @default "123456:TEST-TOKEN" */
  token?: string;
  /** The bot's user id. @default 777000 */
  botId?: number;
  /** The bot's username. @default "bub_test_bot" */
  botUsername?: string;
  /** Makes every file download answer with this HTTP status (e.g. 500). @default null */
  fileDownloadStatus?: number | null;
}

/** Where a built message comes from, and what it replies to. */
export interface FakeMessageOptions {
  /** The chat. Default: the private chat of `from`. */
  chat?: FakeChat;
  /** The sender. Default: {@link FakeTelegramServer.user}. Null leaves `from` out. */
  from?: FakeUser | null;
  /** The message it replies to. */
  replyTo?: Record<string, unknown>;
}

/** Options of {@link FakeTelegramServer.waitForCalls}. */
export interface WaitForCallsOptions {
  /** Only calls passing this test count. */
  where?: (call: FakeTelegramCall) => boolean;
  /** Give up after this many milliseconds. @default 10000 */
  timeoutMs?: number;
  /** Give up when aborted. */
  signal?: AbortSignal;
}
