/**
 * The outbound stage of a Chat SDK channel: an outbound message's text and media posted to its
 * thread, and, on a platform with buttons, an approval card for each `,approve <id>` it asks for.
 *
 * @module
 */
import type { Adapter, Thread } from "chat";
import type { ChannelMessage } from "../../kernel/channel_message.ts";
import { approvalCard, approvalIds } from "./_approvals.ts";
import { linksMarkdown, type OutboundMedia, outboundMedia, unsentNote } from "./_outbound_media.ts";
import type { StreamedAnswers } from "./_stream.ts";
import { outboundText } from "../outbound_text.ts";
import type { ChatPlatform } from "./chat_platform.ts";

/** What {@link postOutbound} needs of its channel. */
export interface PostContext {
  /** The platform. */
  readonly platform: ChatPlatform;
  /** The started adapter (null before the start). */
  readonly adapter: Adapter | null;
  /** The imported SDK (null before the start). */
  readonly sdk: typeof import("chat") | null;
  /** The answers just streamed (not posted again). */
  readonly streamed: StreamedAnswers;
  /** The SDK thread of a chat id (throws before the start). */
  thread(chatId: string): Thread;
}

/**
 * Posts `message`'s text (its JSON `message` field, else the content) as Markdown with its media:
 * as files where the adapter posts them (http(s) media as links, and a note naming a file too
 * large or unreadable to send), else as the Markdown the platform makes of them (GitHub: links
 * and a note; Linear: uploads embedded). Blank text, or the text just streamed
 * there, posts nothing; its media then go in a post of their own.
 */
export async function postOutbound(message: ChannelMessage, context: PostContext): Promise<void> {
  const { platform, adapter } = context;
  const text = outboundText(String(message.content ?? ""));
  const media = await outboundMedia(message.media);
  const embed = platform.mediaMarkdown;
  const extra = message.media.length === 0
    ? ""
    : embed
    ? (adapter ? await embed(media, adapter) : "")
    : postedWithFiles(media);
  const files = embed ? [] : media.files;
  if (text.trim() === "" && files.length === 0 && extra === "") return;
  const streamed = message.kind !== "error" && context.streamed.take(message.chatId, text);
  const thread = context.thread(message.chatId);
  const markdown = [streamed ? "" : text, extra].filter((part) => part.trim() !== "")
    .join("\n\n");
  if (files.length > 0) await thread.post({ markdown, files });
  else if (markdown !== "") await thread.post({ markdown });
  const sdk = context.sdk;
  if (!platform.buttons || sdk === null) return;
  for (const id of approvalIds(text)) await thread.post(approvalCard(sdk, id));
}

const NOT_SENT_HEADING = "Not attached:";

/**
 * The Markdown that goes with the files the SDK posts: http(s) media as links, and a note naming
 * each file that could not be sent (too large, unreadable) instead of dropping it silently.
 */
function postedWithFiles(media: OutboundMedia): string {
  return [...linksMarkdown(media.links), unsentNote(NOT_SENT_HEADING, media.unsent)]
    .filter((part) => part !== "")
    .join("\n\n");
}
