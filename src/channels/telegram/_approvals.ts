/**
 * Approvals as Telegram inline-keyboard buttons. An answer that asks for approvals (its
 * context's `approval_requests`, put there by the builtin's `renderOutbound`) gets Approve /
 * Always / Deny buttons, one row per request; each button's `callback_data` is the comma command
 * it stands for (`,approve <id>`, `,approve <id> always`, `,deny <id>`: at most 26 bytes of the 64
 * Telegram allows). A press ({@link handleApprovalPress}) from a user literally on `allow_users`
 * (the comma-command rule) in an allowed chat runs that command as that user, like typing it;
 * the command checks that the user may decide and takes the decision. Its answer comes back with
 * the press (`_reply_context`) and the decision's outcome (`approval_outcome`), and
 * {@link finishApprovalPress} answers the callback query and edits the message: that request's
 * buttons go, "approved by X" / "denied by X" is added. Anyone else's press is answered "not
 * allowed" and logged (`approval.refused`); nothing runs.
 *
 * @module
 */
import type { Api } from "grammy";
import type { CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup } from "grammy/types";
import { getLogger } from "../../_internal/log.ts";
import { isRecord } from "../../_internal/object.ts";
import type { MessageHandler } from "../../kernel/channel.ts";
import { ChannelMessage } from "../../kernel/channel_message.ts";
import { sessionKey } from "../../kernel/envelope.ts";
import type { AccessPolicy } from "./_access.ts";
import { TELEGRAM_MESSAGE_LIMIT } from "./_split.ts";

const logger = getLogger(["bub", "channels", "telegram"]);

/** The outbound context key of the requests an answer asks for (`[{id, tool}]`). */
const REQUESTS_KEY = "approval_requests";
/** The outbound context key of a decision command's outcome. */
const OUTCOME_KEY = "approval_outcome";
/** The context key that brings a press back on the answer to its command. */
export const REPLY_CONTEXT_KEY = "_reply_context";

/** The only commands a button may carry. */
const BUTTON_DATA = /^,(approve|deny) ([a-z2-7]{10})( always)?$/;

/** The answer to a press that is not allowed. */
export const PRESS_NOT_ALLOWED = "Not allowed: only the session's owner and the approvers decide.";

/** A request an answer asks for. */
interface AskedRequest {
  id: string;
  tool: string;
}

/** The requests in an outbound context (none when absent or malformed). */
export function askedRequests(context: Readonly<Record<string, unknown>>): AskedRequest[] {
  const list = context[REQUESTS_KEY];
  if (!Array.isArray(list)) return [];
  return list.filter((item): item is AskedRequest =>
    isRecord(item) && typeof item.id === "string" && /^[a-z2-7]{10}$/.test(item.id) &&
    typeof item.tool === "string"
  );
}

/** The inline keyboard of `requests`: per request Approve / Always / Deny. */
export function approvalKeyboard(requests: readonly AskedRequest[]): InlineKeyboardMarkup {
  const many = requests.length > 1;
  return {
    inline_keyboard: requests.map(({ id, tool }) => {
      const label = (verb: string) => many ? `${verb} ${tool}`.slice(0, 40) : verb;
      return [
        { text: label("Approve"), callback_data: `,approve ${id}` },
        { text: label("Always"), callback_data: `,approve ${id} always` },
        { text: label("Deny"), callback_data: `,deny ${id}` },
      ];
    }),
  };
}

/** What a press carries to the answer of its command. */
interface Press {
  callback_query_id: string;
  chat_id: number;
  message_id: number;
  /** The approval id. */
  id: string;
  /** Who pressed, as shown in the edited message (`@username`, else the first name). */
  who: string;
  /** The message's text and keyboard when pressed. */
  text: string | null;
  keyboard: InlineKeyboardButton[][];
}

/** What handling a press needs of its channel. */
export interface PressContext {
  readonly channel: string;
  readonly access: AccessPolicy;
  readonly handler: MessageHandler;
  /** The Bot API (answers the callback query of a refused press). */
  api(): Promise<Api>;
  /** An error's text with the bot token redacted. */
  redact(error: unknown): string;
}

/**
 * Handles a `callback_query` update: a listed user's approval button runs its command (see the
 * module doc); anything else is answered at once and nothing runs. Never throws.
 */
export async function handleApprovalPress(
  query: CallbackQuery,
  context: PressContext,
): Promise<void> {
  const answer = (text: string): Promise<void> =>
    context.api().then(async (api) => void await api.answerCallbackQuery(query.id, { text }))
      .catch((error: unknown) =>
        logger.warning("telegram.callback answer failed: {error}", {
          error: context.redact(error),
        })
      );
  try {
    const match = BUTTON_DATA.exec(query.data ?? "");
    const message = query.message;
    if (!match || !message || typeof message.chat?.id !== "number") {
      logger.warning("telegram.callback ignored data={data}: not an approval button", {
        data: String(query.data ?? "").slice(0, 64),
      });
      return await answer("This button does nothing.");
    }
    const id = match[2]!;
    const chatId = String(message.chat.id);
    const user = query.from;
    if (!context.access.chatAllowed(chatId) || !context.access.userListed(user)) {
      logger.warning(
        "approval.refused id={id} chat_id={chatId} user_id={userId} username={username}: " +
          "not on the channel's allow lists",
        { id, chatId, userId: user.id, username: user.username ?? "-" },
      );
      return await answer(PRESS_NOT_ALLOWED);
    }
    const text = "text" in message && typeof message.text === "string" ? message.text : null;
    const markup = "reply_markup" in message ? message.reply_markup : undefined;
    const press: Press = {
      callback_query_id: query.id,
      chat_id: message.chat.id,
      message_id: message.message_id,
      id,
      who: user.username ? `@${user.username}` : user.first_name || String(user.id),
      text,
      keyboard: markup?.inline_keyboard ?? [],
    };
    await context.handler(
      new ChannelMessage({
        sessionId: sessionKey(context.channel, chatId),
        channel: context.channel,
        chatId,
        content: query.data!,
        kind: "command",
        context: { sender_id: String(user.id), [REPLY_CONTEXT_KEY]: press },
      }),
    );
  } catch (error) {
    logger.error("telegram.callback failed: {error}", { error: context.redact(error) });
    await answer("Something went wrong; try ,approvals in the chat.");
  }
}

function pressOf(value: unknown): Press | null {
  if (!isRecord(value) || typeof value.callback_query_id !== "string") return null;
  if (typeof value.chat_id !== "number" || typeof value.message_id !== "number") return null;
  return value as unknown as Press;
}

/** The callback answer and the line added to the message for an outcome. */
function shown(press: Press, outcome: Record<string, unknown>): [string, string | null] {
  const by = typeof outcome.by === "string" ? outcome.by : "";
  switch (outcome.status) {
    case "approved":
      return ["Approved.", `✅ approved by ${press.who}`];
    case "denied":
      return ["Denied.", `❌ denied by ${press.who}`];
    case "expired":
      return ["This approval has expired.", "⌛ expired"];
    case "refused":
      return [PRESS_NOT_ALLOWED, null];
    case "already_decided":
      return [`Already decided: ${by}.`, null];
    default:
      return ["Unknown or expired approval.", null];
  }
}

/** The longest callback answer Telegram shows (it allows 200 characters). */
const ANSWER_LIMIT = 200;

/** The callback answer to a press whose command ended without an outcome (it failed). */
export function failedPressAnswer(text: string): string {
  const first = text.trim().split("\n", 1)[0]!.trim();
  if (first === "") return "Something went wrong; try ,approvals in the chat.";
  const answer = `Failed: ${first}`;
  return answer.length <= ANSWER_LIMIT ? answer : `${answer.slice(0, ANSWER_LIMIT - 1)}…`;
}

/**
 * When `context` is the answer to an approval press: answers its callback query with the
 * outcome and edits the pressed message (that request's buttons removed, the outcome added).
 * An answer without the press's outcome (its command failed) answers the query with a short
 * error (`text`'s first line), so the button never spins until Telegram gives up. True when it
 * was the answer to a press (failures are logged, never thrown).
 */
export async function finishApprovalPress(
  context: Readonly<Record<string, unknown>>,
  api: Api,
  redact: (error: unknown) => string,
  text = "",
): Promise<boolean> {
  const press = pressOf(context[REPLY_CONTEXT_KEY]);
  if (press === null) return false;
  const failed = (what: string) => (error: unknown) =>
    logger.warning("telegram.callback {what} failed: {error}", { what, error: redact(error) });
  const outcome = context[OUTCOME_KEY];
  if (!isRecord(outcome) || outcome.id !== press.id) {
    await api.answerCallbackQuery(press.callback_query_id, { text: failedPressAnswer(text) })
      .catch(failed("answer"));
    return true;
  }
  const [answer, line] = shown(press, outcome);
  await api.answerCallbackQuery(press.callback_query_id, { text: answer })
    .catch(failed("answer"));
  if (outcome.status === "refused") return true;
  const ours = (row: InlineKeyboardButton[]) =>
    row.some((button) =>
      "callback_data" in button && BUTTON_DATA.exec(button.callback_data)?.[2] === press.id
    );
  const rows = press.keyboard.filter((row) => !ours(row));
  const markup = rows.length > 0 ? { reply_markup: { inline_keyboard: rows } } : {};
  const edited = press.text !== null && line !== null ? `${press.text}\n\n${line}` : null;
  if (edited !== null && edited.length <= TELEGRAM_MESSAGE_LIMIT) {
    await api.editMessageText(press.chat_id, press.message_id, edited, markup)
      .catch(failed("edit"));
  } else if (rows.length < press.keyboard.length) {
    // Only the stale buttons go (an unchanged message is not edited: Telegram refuses that).
    await api.editMessageReplyMarkup(press.chat_id, press.message_id, markup)
      .catch(failed("edit"));
  }
  return true;
}
