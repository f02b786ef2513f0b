/**
 * Files a Teams bot sends in a personal chat, the one way Teams lets a bot send a file that is not
 * an inline image: a file consent card asks the user to let the bot put the file in their
 * OneDrive. When they accept, Teams sends a `fileConsent/invoke` activity naming an upload URL (an
 * upload session of their OneDrive for Business); Bub puts the bytes there in one `PUT` with a
 * `Content-Range`, posts a file info card linking the stored file, and removes the consent card.
 * When they decline, the offer is dropped and the card removed. The offered bytes wait in the
 * Chat SDK's state for {@link FILE_OFFER_TTL_MS}: the memory of the instance that offered them
 * (a cluster shares only thread subscriptions), so in a cluster an answer that reaches another
 * instance finds no offer and the user is told the file is no longer available. Bytes go only to
 * an upload URL on `*.sharepoint.com` or the `api_base` host, and never with a token (the upload
 * session URL carries its own authorization).
 *
 * @module
 */
import { getLogger } from "../../_internal/log.ts";
import type { OutboundFile } from "./_outbound_media.ts";
import { hostOf } from "./_media_fetch.ts";
import { connectorOrigin, TEAMS_FILE_HOST_SUFFIXES } from "./_teams_media.ts";

/** The content type of a file consent card. */
export const FILE_CONSENT_CARD = "application/vnd.microsoft.teams.card.file.consent";
/** The content type of a file info card (a file stored in OneDrive). */
export const FILE_INFO_CARD = "application/vnd.microsoft.teams.card.file.info";
/** How long an offered file waits for the user's answer (one hour). */
export const FILE_OFFER_TTL_MS = 3600_000;

/** An offered file as the state keeps it. */
interface StoredOffer {
  filename: string;
  mimeType: string;
  /** The bytes, base64. */
  data: string;
}

/** What the offers keep in the Chat SDK's state adapter. */
export interface OfferState {
  get<T>(key: string): Promise<T | null>;
  set(key: string, value: unknown, ttlMs?: number): Promise<void>;
  delete(key: string): Promise<void>;
}

/** Where an activity goes (what the adapter's `sendTo` takes). */
export interface TeamsTarget {
  conversationId: string;
  serviceUrl: string;
  conversationType?: "personal" | "groupChat" | "channel";
}

/** What {@link TeamsFileOffers} needs of the adapter. */
export interface TeamsFileOffersOptions {
  /** The Chat SDK's state, null before the adapter is initialized. */
  readonly state: () => OfferState | null;
  /** The `api_base` (an upload host besides SharePoint), null = none. */
  readonly apiBase: string | null;
  /** Sends an activity to a conversation. */
  readonly send: (target: TeamsTarget, activity: Record<string, unknown>) => Promise<unknown>;
  /** Deletes one of the bot's activities (the answered consent card); best effort. */
  readonly remove: (target: TeamsTarget, activityId: string) => Promise<unknown>;
}

/** A `fileConsent/invoke` activity, as far as Bub reads it. */
interface FileConsentActivity {
  value?: {
    action?: string;
    context?: { bub_file?: unknown };
    uploadInfo?: {
      name?: string;
      uploadUrl?: string;
      contentUrl?: string;
      uniqueId?: string;
      fileType?: string;
    };
  };
  replyToId?: string;
  serviceUrl?: string;
  conversation?: { id?: string; conversationType?: TeamsTarget["conversationType"] };
}

const KEY = (id: string) => `bub:teams:file-offer:${id}`;

/** The file consent offers of one Teams channel. */
export class TeamsFileOffers {
  readonly #options: TeamsFileOffersOptions;

  /** @param options the adapter's state, `api_base` and send / delete */
  constructor(options: TeamsFileOffersOptions) {
    this.#options = options;
  }

  /** Keeps `file` for the user's answer; the consent card attachment that asks for it. */
  async offer(file: OutboundFile): Promise<Record<string, unknown>> {
    const state = this.#options.state();
    if (state === null) throw new Error("Cannot offer a file: the Teams adapter has not started");
    const id = crypto.randomUUID();
    const stored: StoredOffer = {
      filename: file.filename,
      mimeType: file.mimeType,
      data: file.data.toString("base64"),
    };
    await state.set(KEY(id), stored, FILE_OFFER_TTL_MS);
    return {
      contentType: FILE_CONSENT_CARD,
      name: file.filename,
      content: {
        description: file.filename,
        sizeInBytes: file.data.byteLength,
        acceptContext: { bub_file: id },
        declineContext: { bub_file: id },
      },
    };
  }

  /** Completes (accepted) or drops (declined) the offer a `fileConsent/invoke` answers. */
  async answer(activity: FileConsentActivity): Promise<void> {
    const logger = getLogger(["bub", "channels", "teams"]);
    const state = this.#options.state();
    const id = activity.value?.context?.bub_file;
    const conversationId = activity.conversation?.id;
    if (state === null || typeof id !== "string" || !conversationId || !activity.serviceUrl) return;
    const target: TeamsTarget = {
      conversationId,
      serviceUrl: activity.serviceUrl,
      ...(activity.conversation?.conversationType
        ? { conversationType: activity.conversation.conversationType }
        : {}),
    };
    const stored = await state.get<StoredOffer>(KEY(id));
    await state.delete(KEY(id));
    if (activity.replyToId) {
      await this.#options.remove(target, activity.replyToId).catch(() => {});
    }
    if (activity.value?.action !== "accept") return;
    if (stored === null) {
      await this.#options.send(target, {
        type: "message",
        text: "That file is no longer available (an offered file waits one hour).",
      });
      return;
    }
    const upload = activity.value.uploadInfo ?? {};
    const uploadUrl = upload.uploadUrl ?? "";
    if (!this.#uploadHost(uploadUrl)) {
      logger.warning("teams.file refused upload host={host}", { host: hostOf(uploadUrl) ?? "" });
      return;
    }
    const data = Uint8Array.from(atob(stored.data), (c) => c.charCodeAt(0));
    const response = await fetch(uploadUrl, {
      method: "PUT",
      headers: {
        "content-type": stored.mimeType,
        "content-range": `bytes 0-${data.byteLength - 1}/${data.byteLength}`,
      },
      body: data,
      redirect: "manual",
      signal: AbortSignal.timeout(60_000),
    });
    await response.body?.cancel();
    if (!response.ok) {
      logger.warning("teams.file upload failed: HTTP {status}", { status: response.status });
      await this.#options.send(target, {
        type: "message",
        text:
          `${stored.filename} could not be uploaded to your OneDrive (HTTP ${response.status}).`,
      });
      return;
    }
    await this.#options.send(target, {
      type: "message",
      attachments: [{
        contentType: FILE_INFO_CARD,
        contentUrl: upload.contentUrl,
        name: upload.name ?? stored.filename,
        content: { uniqueId: upload.uniqueId, fileType: upload.fileType },
      }],
    });
  }

  #uploadHost(uploadUrl: string): boolean {
    let url: URL;
    try {
      url = new URL(uploadUrl);
    } catch {
      return false;
    }
    // https, or a loopback fake (the same rule as a Bot Connector's).
    if (connectorOrigin(url.href) === null) return false;
    const host = url.hostname.toLowerCase();
    return host === hostOf(this.#options.apiBase) ||
      TEAMS_FILE_HOST_SUFFIXES.some((suffix) => host.endsWith(suffix));
  }
}
