/** Types of `FakeTelegramServer`. @module */

/**
 * A Telegram user as the fake puts it in messages (`from`).
 *
 * @example
 * ```ts
 * import { FakeTelegramServer, type FakeUser } from "@bub/core/testing";
 * await using server = await FakeTelegramServer.start();
 * const alice: FakeUser = server.makeUser(7, "alice");
 * server.pushText("hi", { from: alice });
 * ```
 */
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

/**
 * A Telegram chat as the fake builds it.
 *
 * @example
 * ```ts
 * import { type FakeChat, FakeTelegramServer } from "@bub/core/testing";
 * await using server = await FakeTelegramServer.start();
 * const group: FakeChat = server.groupChat();
 * server.pushText("hello all", { chat: group });
 * ```
 */
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

/**
 * A file the fake serves through `getFile` and `/file/bot<token>/<path>`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type FakeFile, FakeTelegramServer } from "@bub/core/testing";
 * await using server = await FakeTelegramServer.start();
 * const file: FakeFile = server.addFile(new TextEncoder().encode("hello"));
 * const response = await fetch(`${server.apiRoot}/file/bot${server.token}/${file.file_path}`);
 * assert.equal(await response.text(), "hello");
 * ```
 */
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

/**
 * One recorded Bot API call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type FakeTelegramCall, FakeTelegramServer } from "@bub/core/testing";
 * await using server = await FakeTelegramServer.start();
 * await fetch(`${server.apiRoot}/bot${server.token}/getMe`).then((r) => r.body?.cancel());
 * const [call]: FakeTelegramCall[] = server.callsOf("getMe");
 * assert.equal(call?.method, "getMe");
 * ```
 */
export interface FakeTelegramCall {
  /** The method name, e.g. `sendMessage`. */
  method: string;
  /** The parameters as sent (JSON body, form or query). */
  params: Record<string, unknown>;
}

/**
 * Options of {@link FakeTelegramServer.start}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FakeTelegramServer, type FakeTelegramServerOptions } from "@bub/core/testing";
 * const options: FakeTelegramServerOptions = { token: "123:test", botUsername: "my_bot" };
 * await using server = await FakeTelegramServer.start(options);
 * assert.equal(server.bot.username, "my_bot");
 * ```
 */
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

/**
 * Where a built message comes from, and what it replies to.
 *
 * @example
 * ```ts
 * import { FakeTelegramServer, type FakeMessageOptions } from "@bub/core/testing";
 * await using server = await FakeTelegramServer.start();
 * const options: FakeMessageOptions = { chat: server.groupChat(), from: server.makeUser(9) };
 * server.pushMessage({ text: "in the group" }, options);
 * ```
 */
export interface FakeMessageOptions {
  /** The chat. Default: the private chat of `from`. */
  chat?: FakeChat;
  /** The sender. Default: {@link FakeTelegramServer.user}. Null leaves `from` out. */
  from?: FakeUser | null;
  /** The message it replies to. */
  replyTo?: Record<string, unknown>;
}

/**
 * Options of {@link FakeTelegramServer.waitForCalls}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FakeTelegramServer, type WaitForCallsOptions } from "@bub/core/testing";
 * await using server = await FakeTelegramServer.start();
 * const options: WaitForCallsOptions = { timeoutMs: 5_000, where: (call) => call.params.chat_id === 42 };
 * const api = `${server.apiRoot}/bot${server.token}/sendMessage`;
 * await fetch(api, {
 *   method: "POST",
 *   headers: { "content-type": "application/json" },
 *   body: JSON.stringify({ chat_id: 42, text: "hi" }),
 * }).then((r) => r.body?.cancel());
 * const [sent] = await server.waitForCalls("sendMessage", 1, options);
 * assert.equal(sent?.params.text, "hi");
 * ```
 */
export interface WaitForCallsOptions {
  /** Only calls passing this test count. */
  where?: (call: FakeTelegramCall) => boolean;
  /** Give up after this many milliseconds. @default 10000 */
  timeoutMs?: number;
  /** Give up when aborted. */
  signal?: AbortSignal;
}
