/**
 * Private: the keys, tokens and event payloads of the fake Google Chat (Workspace Add-ons event
 * shape, which the Chat SDK's adapter reads).
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { createSign, generateKeyPairSync } from "node:crypto";
/**
 * A Google Chat user of the fake.
 *
 * @example
 * ```ts
 * import type { FakeGChatUser } from "@bub/core/testing";
 * const ada: FakeGChatUser = { name: "users/101", displayName: "Ada" };
 * ```
 */
export interface FakeGChatUser {
  /** The resource name (`users/<id>`), the id `allow_users` may list. */
  readonly name: string;
  /** The display name. */
  readonly displayName: string;
}

/**
 * A message the bot posted (its latest state).
 *
 * @example
 * ```ts
 * import type { FakeGChatMessage } from "@bub/core/testing";
 * const sent: FakeGChatMessage = {
 *   name: "spaces/S/messages/1",
 *   thread: null,
 *   text: "hi",
 *   buttons: [],
 *   viewer: null,
 * };
 * ```
 */
export interface FakeGChatMessage {
  /** The resource name (`spaces/<s>/messages/<m>`). */
  readonly name: string;
  /** The thread it was posted in. */
  readonly thread: string | null;
  /** Its text. */
  text: string;
  /** Its cards' buttons: action id and value. */
  buttons: { actionId: string; value: string }[];
  /** The only user who sees it (`privateMessageViewer`), if any. */
  readonly viewer: string | null;
}

/** The account that signs Google Chat's event tokens. */
export const CHAT_ISSUER = "chat@system.gserviceaccount.com";
/** Google's token endpoint: the audience of a service account's grant. */
export const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";
const b64 = (data: string | Uint8Array) => Buffer.from(data).toString("base64url");

/** Signs an RS256 JWT. */
export function signJwt(key: string, kid: string, claims: Record<string, unknown>): string {
  const input = `${b64(JSON.stringify({ alg: "RS256", typ: "JWT", kid }))}.${
    b64(JSON.stringify(claims))
  }`;
  return `${input}.${createSign("RSA-SHA256").update(input).sign(key, "base64url")}`;
}

/** A fresh RSA key pair (PEM). */
export function keyPair(): { publicKey: string; privateKey: string } {
  return generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
}

/**
 * Where and how a message of the fake Google Chat is written.
 *
 * @example
 * ```ts
 * import type { GChatMessageOptions } from "@bub/core/testing";
 * const dm: GChatMessageOptions = { space: "spaces/D1", dm: true, mention: false };
 * ```
 */
export interface GChatMessageOptions {
  /** The space (default `spaces/AAA`). */
  space?: string;
  /** The thread (default: a new one). */
  thread?: string;
  /** Whether the text mentions the bot (default true). */
  mention?: boolean;
  /** Whether the space is a direct message. */
  dm?: boolean;
  /** The message's attachments (see `FakeGChatServer.attachment`, `driveAttachment`). */
  attachments?: readonly Record<string, unknown>[];
}

/** A message event: `user` writes `text` (message `id`) in `space`, mentioning `bot`. */
export function messageEvent(
  bot: FakeGChatUser,
  user: FakeGChatUser,
  text: string,
  id: string,
  options: GChatMessageOptions = {},
): Record<string, unknown> {
  const space = options.space ?? "spaces/AAA";
  const thread = options.thread ?? `${space}/threads/${id}`;
  const mention = options.mention ?? true;
  const body = mention ? `@${bot.displayName} ${text}` : text;
  const annotations = mention
    ? [{
      type: "USER_MENTION",
      startIndex: 0,
      length: bot.displayName.length + 1,
      userMention: { user: { ...bot, type: "BOT" }, type: "MENTION" },
    }]
    : [];
  const sender = { ...user, type: "HUMAN" };
  return {
    commonEventObject: { hostApp: "CHAT" },
    chat: {
      user: sender,
      eventTime: new Date().toISOString(),
      messagePayload: {
        space: options.dm
          ? { name: space, type: "DM", spaceType: "DIRECT_MESSAGE" }
          : { name: space, type: "ROOM", spaceType: "SPACE" },
        message: {
          name: `${space}/messages/${id}`,
          text: body,
          argumentText: text,
          annotations,
          sender,
          createTime: new Date().toISOString(),
          thread: { name: thread },
          space: { name: space },
          ...(options.attachments ? { attachment: options.attachments } : {}),
        },
      },
    },
  };
}

/** A button click event: `user` clicks `button` of the bot's `message`. */
export function clickEvent(
  user: FakeGChatUser,
  message: FakeGChatMessage,
  button: { actionId: string; value: string },
): Record<string, unknown> {
  const space = message.name.split("/messages/")[0]!;
  const sender = { ...user, type: "HUMAN" };
  return {
    commonEventObject: {
      hostApp: "CHAT",
      parameters: { actionId: button.actionId, value: button.value },
    },
    chat: {
      user: sender,
      buttonClickedPayload: {
        space: { name: space, type: "ROOM" },
        message: { name: message.name, thread: message.thread ? { name: message.thread } : null },
        user: sender,
      },
    },
  };
}
