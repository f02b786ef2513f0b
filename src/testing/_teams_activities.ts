/**
 * Private: the Bot Framework activities the fake Teams sends to a bot — a message (in a DM, or
 * a channel post mentioning the bot), a click on an Adaptive Card button (an `Action.Submit`: a
 * message activity carrying the button's data, or an `adaptiveCard/action` invoke) and the answer
 * to a file consent card.
 *
 * @module
 */

/**
 * A Teams user of the fake.
 *
 * @example
 * ```ts
 * import type { FakeTeamsUser } from "@bub/core/testing";
 * const ada: FakeTeamsUser = { id: "29:ada", name: "Ada", aadObjectId: "aad-ada" };
 * ```
 */
export interface FakeTeamsUser {
  /** The Teams user id (`29:…`), what `allow_users` names. */
  readonly id: string;
  /** The display name. */
  readonly name: string;
  /** The Entra object id. */
  readonly aadObjectId: string;
}

/**
 * Where an activity happens.
 *
 * @example
 * ```ts
 * import type { TeamsConversationOptions } from "@bub/core/testing";
 * const channel: TeamsConversationOptions = {
 *   conversation: "19:general@thread.tacv2",
 *   type: "channel",
 * };
 * ```
 */
export interface TeamsConversationOptions {
  /** The conversation id (default: the user's DM, `a:dm-<user id>`). */
  conversation?: string;
  /** The conversation type (default `personal`; `channel` mentions the bot). */
  type?: "personal" | "channel";
  /** The activity id (default: a fresh one); a redelivery reuses it. */
  id?: string;
  /** A message's attachments (see `FakeTeamsServer.inlineImage`, `fileDownload`). */
  attachments?: readonly Record<string, unknown>[];
}

/** What the activities are built from. */
export interface ActivityContext {
  /** The Bot Connector URL replies go to. */
  readonly serviceUrl: string;
  /** The bot's app id. */
  readonly appId: string;
  /** The bot's name. */
  readonly botName: string;
  /** The tenant. */
  readonly tenantId: string;
}

/** The parts every activity from `user` shares. */
function base(
  context: ActivityContext,
  user: FakeTeamsUser,
  options: TeamsConversationOptions,
): Record<string, unknown> {
  const type = options.type ?? "personal";
  const conversation = options.conversation ?? `a:dm-${user.id.replace(/^\d+:/, "")}`;
  return {
    id: options.id ?? `1${Date.now()}${Math.floor(Math.random() * 1e6)}`,
    timestamp: new Date().toISOString(),
    channelId: "msteams",
    serviceUrl: context.serviceUrl,
    from: { id: user.id, name: user.name, aadObjectId: user.aadObjectId },
    recipient: { id: `28:${context.appId}`, name: context.botName },
    conversation: {
      id: conversation,
      conversationType: type,
      tenantId: context.tenantId,
      ...(type === "channel" ? { isGroup: true } : {}),
    },
    channelData: { tenant: { id: context.tenantId } },
  };
}

/** A message from `user` (in a channel it mentions the bot). */
export function messageActivity(
  context: ActivityContext,
  user: FakeTeamsUser,
  text: string,
  options: TeamsConversationOptions = {},
): Record<string, unknown> {
  const activity = {
    ...base(context, user, options),
    ...(options.attachments ? { attachments: options.attachments } : {}),
  };
  if (options.type !== "channel") return { ...activity, type: "message", text };
  const mention = `<at>${context.botName}</at>`;
  return {
    ...activity,
    type: "message",
    text: `${mention} ${text}`,
    entities: [{
      type: "mention",
      text: mention,
      mentioned: { id: `28:${context.appId}`, name: context.botName },
    }],
  };
}

/**
 * A button's data as the adapter puts it on the card (`{ actionId, value }`).
 *
 * @example
 * ```ts
 * import type { TeamsButtonData } from "@bub/core/testing";
 * const approve: TeamsButtonData = { actionId: "bub_approve", value: ",approve abcdefghij" };
 * ```
 */
export interface TeamsButtonData {
  /** The button's action id. */
  readonly actionId: string;
  /** The button's value. */
  readonly value?: string;
}

/**
 * A click on `button` (on card `button.messageId`) as Teams delivers it: `submit`, an
 * `Action.Submit` (a message activity with the button's data as `value`), or `invoke`, an
 * `adaptiveCard/action` invoke.
 */
export function clickActivity(
  context: ActivityContext,
  user: FakeTeamsUser,
  button: TeamsButtonData & { readonly messageId: string },
  delivery: "submit" | "invoke",
  options: TeamsConversationOptions = {},
): Record<string, unknown> {
  const activity = base(context, user, options);
  const data = { actionId: button.actionId, value: button.value };
  if (delivery === "submit") {
    return { ...activity, type: "message", replyToId: button.messageId, value: data };
  }
  return {
    ...activity,
    type: "invoke",
    name: "adaptiveCard/action",
    replyToId: button.messageId,
    value: { action: { type: "Action.Execute", data }, trigger: "manual" },
  };
}

/** The answer to a file consent card (`fileConsent/invoke`); `uploadInfo` only when accepted. */
export function fileConsentActivity(
  context: ActivityContext,
  user: FakeTeamsUser,
  card: { messageId: string; context: unknown },
  action: "accept" | "decline",
  uploadInfo: Record<string, unknown> | null,
  options: TeamsConversationOptions = {},
): Record<string, unknown> {
  return {
    ...base(context, user, options),
    type: "invoke",
    name: "fileConsent/invoke",
    replyToId: card.messageId,
    value: {
      type: "fileUpload",
      action,
      context: card.context,
      ...(uploadInfo ? { uploadInfo } : {}),
    },
  };
}
