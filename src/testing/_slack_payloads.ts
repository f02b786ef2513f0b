/**
 * Private: the payloads and message texts of the fake Slack (Block Kit interactions, the text of
 * posted, updated and streamed messages).
 *
 * @module
 */

/** The text of a posted or updated message: `markdown_text`, else `text`. */
export function textOf(params: Record<string, unknown>): string {
  return String(params.markdown_text ?? params.text ?? "");
}

/** The text of a streaming call's `chunks` (a JSON array of `markdown_text` chunks). */
export function chunkText(params: Record<string, unknown>): string {
  const chunks = typeof params.chunks === "string" ? JSON.parse(params.chunks) : params.chunks;
  if (!Array.isArray(chunks)) return String(params.markdown_text ?? "");
  return chunks.map((chunk) => (chunk as { text?: unknown }).text ?? "").join("");
}

/**
 * Options of a message event (see `FakeSlackServer.messageEvent`).
 *
 * @example
 * ```ts
 * import type { MessageEventOptions } from "@bub/core/testing";
 * const reply: MessageEventOptions = { threadTs: "1700000001.000100" };
 * ```
 */
export interface MessageEventOptions {
  /** The channel (default `C0001`, or `D0001` for a direct message). */
  channel?: string;
  /** The message's `ts` (default: a fresh one). */
  ts?: string;
  /** The thread it replies in. */
  threadTs?: string;
  /** The `event_id` (default: a fresh one). */
  eventId?: string;
  /** A direct message (`im`). */
  direct?: boolean;
  /** Slack file objects attached (`file_share` unless it mentions the bot). */
  files?: Record<string, unknown>[];
}

/** An `event_callback` payload of a message from `user` (`ts` and `eventId` given). */
export function messageEventPayload(
  ids: { teamId: string; botUserId: string },
  user: string,
  text: string,
  options: MessageEventOptions & { ts: string; eventId: string },
): Record<string, unknown> {
  const ts = options.ts;
  const mention = text.includes(`<@${ids.botUserId}>`);
  return {
    token: "verification",
    team_id: ids.teamId,
    api_app_id: "A0001",
    type: "event_callback",
    event_id: options.eventId,
    event_time: Math.floor(Date.now() / 1000),
    event: {
      type: mention ? "app_mention" : "message",
      user,
      text,
      ts,
      event_ts: ts,
      channel: options.channel ?? (options.direct ? "D0001" : "C0001"),
      channel_type: options.direct ? "im" : "channel",
      team: ids.teamId,
      ...(options.threadTs ? { thread_ts: options.threadTs } : {}),
      ...(options.files ? { files: options.files } : {}),
      ...(options.files && !mention ? { subtype: "file_share" } : {}),
    },
  };
}

/** A `block_actions` interaction: `user` clicks `button` in `channel`. */
export function blockActionsPayload(
  teamId: string,
  user: string,
  channel: string,
  button: { actionId: string; value: string; messageTs: string; threadTs: string },
  actionTs: string,
): Record<string, unknown> {
  return {
    type: "block_actions",
    team: { id: teamId },
    user: { id: user, username: user.toLowerCase(), name: user.toLowerCase() },
    api_app_id: "A0001",
    trigger_id: `trigger-${actionTs}`,
    container: {
      type: "message",
      message_ts: button.messageTs,
      channel_id: channel,
      thread_ts: button.threadTs,
    },
    channel: { id: channel, name: "general" },
    message: { ts: button.messageTs, thread_ts: button.threadTs, type: "message" },
    actions: [{
      type: "button",
      action_id: button.actionId,
      block_id: "actions",
      value: button.value,
      action_ts: actionTs,
    }],
  };
}

/** The fake Web API's answer to a call of `method`. */
export function webApiAnswer(
  method: string,
  params: Record<string, unknown>,
  ids: { teamId: string; botUserId: string },
): Record<string, unknown> {
  switch (method) {
    case "auth.test":
      return {
        ok: true,
        url: "https://fake.slack.test/",
        team: "Fake",
        user: "bub",
        team_id: ids.teamId,
        user_id: ids.botUserId,
        bot_id: "BBUB",
      };
    case "chat.postMessage":
      return {
        ok: true,
        channel: params.channel,
        ts: params.__ts,
        message: { type: "message", text: textOf(params), ts: params.__ts, user: ids.botUserId },
      };
    case "chat.startStream":
      return { ok: true, channel: params.channel, ts: params.__ts };
    case "chat.appendStream":
    case "chat.stopStream":
      return { ok: true, channel: params.channel, ts: params.ts };
    case "chat.update":
      return { ok: true, channel: params.channel, ts: params.ts, text: params.text };
    case "users.info": {
      const id = String(params.user ?? "");
      const name = id.toLowerCase();
      return {
        ok: true,
        user: { id, name, real_name: name, profile: { display_name: name, real_name: name } },
      };
    }
    case "files.getUploadURLExternal":
      return { ok: true, ...(params.__upload as Record<string, unknown>) };
    case "files.completeUploadExternal":
      return { ok: true, files: JSON.parse(String(params.files ?? "[]")) };
    case "conversations.info":
      return {
        ok: true,
        channel: { id: params.channel, name: "general", is_channel: true, is_im: false },
      };
    default:
      return { ok: true };
  }
}
