/**
 * Private: the payloads of the fake Discord — snowflakes, users, channels, messages, the gateway's
 * READY / GUILD_CREATE data and signed HTTP interactions (Ed25519 through WebCrypto).
 *
 * @module
 */
import { Buffer } from "node:buffer";

/** Discord's epoch (2015-01-01) in milliseconds. */
const DISCORD_EPOCH = 1_420_070_400_000n;
let sequence = 0n;

/** A fresh snowflake id (time-ordered, unique in this process). */
export function snowflake(): string {
  sequence = (sequence + 1n) & 0xfffn;
  return String(((BigInt(Date.now()) - DISCORD_EPOCH) << 22n) | sequence);
}

/** A Discord user object. */
export function userObject(id: string, username: string, bot = false): Record<string, unknown> {
  return {
    id,
    username,
    global_name: username,
    discriminator: "0",
    avatar: null,
    bot,
  };
}

/** A guild text channel (type 0) or a public thread (type 11) of `guildId`. */
export function channelObject(
  id: string,
  guildId: string,
  options: { parentId?: string; name?: string } = {},
): Record<string, unknown> {
  const thread = options.parentId !== undefined;
  return {
    id,
    guild_id: guildId,
    type: thread ? 11 : 0,
    name: options.name ?? (thread ? `thread-${id}` : "general"),
    position: 0,
    permission_overwrites: [],
    ...(thread
      ? {
        parent_id: options.parentId,
        owner_id: "0",
        thread_metadata: {
          archived: false,
          auto_archive_duration: 1440,
          archive_timestamp: new Date().toISOString(),
          locked: false,
        },
        member_count: 1,
        message_count: 0,
      }
      : { parent_id: null }),
  };
}

/** A guild as GUILD_CREATE sends it, with its channels. */
export function guildObject(
  id: string,
  ownerId: string,
  channels: Record<string, unknown>[],
): Record<string, unknown> {
  return {
    id,
    name: "Fake Guild",
    owner_id: ownerId,
    unavailable: false,
    member_count: 2,
    large: false,
    features: [],
    roles: [{ id, name: "@everyone", permissions: "0", position: 0, color: 0, managed: false }],
    emojis: [],
    stickers: [],
    channels,
    threads: [],
    members: [],
    presences: [],
    voice_states: [],
    stage_instances: [],
    guild_scheduled_events: [],
    joined_at: new Date().toISOString(),
  };
}

/** A message object (`MESSAGE_CREATE` data and REST answers). */
export function messageObject(
  fields: {
    id: string;
    channelId: string;
    guildId?: string | null;
    channelType?: number;
    author: Record<string, unknown>;
    content: string;
    mentions?: Record<string, unknown>[];
    components?: unknown[];
    embeds?: unknown[];
    attachments?: Record<string, unknown>[];
  },
): Record<string, unknown> {
  return {
    id: fields.id,
    channel_id: fields.channelId,
    ...(fields.guildId ? { guild_id: fields.guildId } : {}),
    ...(fields.channelType !== undefined ? { channel_type: fields.channelType } : {}),
    author: fields.author,
    content: fields.content,
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: fields.mentions ?? [],
    mention_roles: [],
    attachments: fields.attachments ?? [],
    embeds: fields.embeds ?? [],
    components: fields.components ?? [],
    pinned: false,
    type: 0,
    flags: 0,
  };
}

/** An Ed25519 key pair for signing interactions, with the public key as Discord shows it (hex). */
export interface SigningKeys {
  readonly privateKey: CryptoKey;
  readonly publicKeyHex: string;
}

/** Generates an Ed25519 key pair with WebCrypto. */
export async function signingKeys(): Promise<SigningKeys> {
  const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const raw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
  return { privateKey: pair.privateKey, publicKeyHex: Buffer.from(raw).toString("hex") };
}

/**
 * POSTs the interaction `body` to `url` signed as Discord signs it: `X-Signature-Ed25519`, the
 * signature of `timestamp + body` under `key`, and `X-Signature-Timestamp`.
 */
export async function postSignedInteraction(
  url: string,
  key: CryptoKey,
  body: string,
): Promise<Response> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const data = new TextEncoder().encode(timestamp + body);
  const signature = await crypto.subtle.sign({ name: "Ed25519" }, key, data);
  return await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-signature-ed25519": Buffer.from(new Uint8Array(signature)).toString("hex"),
      "x-signature-timestamp": timestamp,
    },
    body,
  });
}

/** The buttons (`custom_id`, label) of a message's action rows. */
export function buttonsOf(components: unknown): { customId: string; label: string }[] {
  const out: { customId: string; label: string }[] = [];
  const walk = (items: unknown): void => {
    if (!Array.isArray(items)) return;
    for (const item of items as Record<string, unknown>[]) {
      if (item.type === 2 && typeof item.custom_id === "string") {
        out.push({ customId: item.custom_id, label: String(item.label ?? "") });
      }
      walk(item.components);
    }
  };
  walk(components);
  return out;
}

/** A message the bot posted, as the fake keeps it. */
export interface StoredMessage {
  id: string;
  channelId: string;
  content: string;
  components: unknown[];
}

/** The REST routes the fake names its calls by (`POST /channels/{channel}/messages`). */
const ROUTES: [RegExp, string][] = [
  [/^\/channels\/\d+\/messages\/\d+\/threads$/, "/channels/{channel}/messages/{message}/threads"],
  [/^\/channels\/\d+\/messages\/\d+$/, "/channels/{channel}/messages/{message}"],
  [/^\/channels\/\d+\/messages$/, "/channels/{channel}/messages"],
  [/^\/channels\/\d+\/typing$/, "/channels/{channel}/typing"],
  [/^\/channels\/\d+$/, "/channels/{channel}"],
  [/^\/interactions\/\d+\/[^/]+\/callback$/, "/interactions/{id}/{token}/callback"],
  [/^\/users\/[^/]+$/, "/users/{user}"],
];

/** The route a REST call is logged under: `VERB /template` (the path itself when unknown). */
export function routeOf(method: string, path: string): string {
  return `${method} ${ROUTES.find(([pattern]) => pattern.test(path))?.[1] ?? path}`;
}

/** A MESSAGE_COMPONENT interaction: `user` clicked `customId` on the bot's `message`. */
export function componentInteraction(fields: {
  applicationId: string;
  guildId: string;
  user: Record<string, unknown>;
  customId: string;
  message: StoredMessage;
  parentId: string | undefined;
  dm: boolean;
}): Record<string, unknown> {
  const { message, user } = fields;
  const id = snowflake();
  return {
    id,
    application_id: fields.applicationId,
    type: 3,
    token: `interaction-token-${id}`,
    version: 1,
    channel_id: message.channelId,
    channel: fields.dm ? { id: message.channelId, type: 1 } : channelObject(
      message.channelId,
      fields.guildId,
      fields.parentId ? { parentId: fields.parentId } : {},
    ),
    ...(fields.dm ? { user } : {
      guild_id: fields.guildId,
      member: { user, roles: [], permissions: "0", joined_at: new Date().toISOString() },
    }),
    data: { custom_id: fields.customId, component_type: 2 },
    // Installed to the guild (0) or, for a DM, to the user (1).
    authorizing_integration_owners: fields.dm ? { "1": String(user.id) } : { "0": fields.guildId },
    context: fields.dm ? 1 : 0,
    message: messageObject({
      id: message.id,
      channelId: message.channelId,
      author: userObject(fields.applicationId, "bub", true),
      content: message.content,
      components: message.components,
    }),
    app_permissions: "0",
    locale: "en-US",
    entitlements: [],
  };
}

/** A multipart message post (files): its `payload_json`, with the files as `__files`. */
export async function multipartParams(
  raw: Uint8Array,
  type: string,
): Promise<Record<string, unknown>> {
  const form = await new Response(new Uint8Array(raw), { headers: { "content-type": type } })
    .formData();
  const params = JSON.parse(String(form.get("payload_json") ?? "{}")) as Record<string, unknown>;
  const files: { field: string; filename: string; type: string; data: Uint8Array }[] = [];
  for (const [field, value] of form.entries()) {
    if (typeof value === "string") continue;
    files.push({
      field,
      filename: value.name,
      type: value.type,
      data: new Uint8Array(await value.arrayBuffer()),
    });
  }
  params.__files = files;
  return params;
}
