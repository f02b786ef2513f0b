/**
 * Linear through the Chat SDK's adapter (`@chat-adapter/linear`, imported when the channel
 * starts): comments on issues arrive as `Comment` webhooks at `POST /webhooks/linear`, answers go
 * back as replies under the comment through Linear's GraphQL API (`api_base`), streamed as a
 * comment edited while the text arrives.
 *
 * Two things Bub adds around the adapter:
 * - The signature check runs here (the adapter's `webhookVerifier` seam): the hex HMAC-SHA256
 *   of the body with the webhook secret in `linear-signature`, and a delivery time
 *   (`linear-timestamp` header or the body's `webhookTimestamp`) within a minute of now. The
 *   adapter's own check answers a forgery 400; through the verifier it is 401, like every other
 *   Bub webhook platform, and a delivery without a time is refused (no replays).
 * - A rate-limited GraphQL request (`RATELIMITED`, or HTTP 429) is retried after the reset the
 *   answer names (`X-RateLimit-Requests-Reset`, else a second), at most 4 tries: the adapter
 *   does not retry, so an answer would be lost. Retrying one request is safe: Linear refuses a
 *   rate-limited mutation before running it.
 *
 * @module
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Adapter, Logger } from "chat";
import type { LinearUploadFile } from "./_linear_media.ts";

/** Linear's GraphQL endpoint. */
export const LINEAR_API_URL = "https://api.linear.app/graphql";

/** Oldest (or newest) accepted delivery time, as Linear's SDK checks it. */
const MAX_SKEW_MS = 60_000;
/** Most tries of one rate-limited GraphQL request. */
const RATE_LIMIT_TRIES = 4;
/** Longest wait for one rate limit before giving up. */
const MAX_WAIT_MS = 60_000;

/** What {@link createLinearAdapter} needs. */
export interface LinearAdapterSettings {
  /** A personal API key (sent as is). */
  readonly apiKey?: string;
  /** An OAuth access token (sent as `Bearer`), instead of the API key. */
  readonly accessToken?: string;
  /** The webhook signing secret. */
  readonly webhookSecret: string;
  /** The bot's display name (mentions are `@<user_name>`). */
  readonly userName: string;
  /** The GraphQL endpoint, null = Linear's own. */
  readonly apiBase: string | null;
  /** The SDK's logger. */
  readonly logger: Logger;
}

/** True when `body` is signed with `secret` and was sent within a minute of `now`. */
export function verifyLinearWebhook(
  secret: string,
  headers: Headers,
  body: string,
  now: number = Date.now(),
): boolean {
  const encode = (text: string) => new TextEncoder().encode(text);
  const signature = encode(headers.get("linear-signature") ?? "");
  const expected = encode(createHmac("sha256", secret).update(body).digest("hex"));
  if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) return false;
  let sent: unknown = headers.get("linear-timestamp");
  if (sent === null) {
    try {
      sent = (JSON.parse(body) as { webhookTimestamp?: unknown }).webhookTimestamp;
    } catch {
      return false;
    }
  }
  const ms = typeof sent === "string" ? Number.parseInt(sent, 10) : sent;
  return typeof ms === "number" && Number.isFinite(ms) && Math.abs(now - ms) <= MAX_SKEW_MS;
}

/** The wait a rate-limited GraphQL error asks for, else null (another error). */
export function linearRetryMs(error: unknown, now: number = Date.now()): number | null {
  const response = (error as {
    response?: {
      status?: number;
      headers?: Headers;
      errors?: { extensions?: { code?: unknown; type?: unknown } }[];
    };
  })?.response;
  if (!response) return null;
  const limited = response.status === 429 ||
    (response.errors ?? []).some((e) =>
      e?.extensions?.code === "RATELIMITED" ||
      String(e?.extensions?.type ?? "").toLowerCase() === "ratelimited"
    );
  if (!limited) return null;
  const reset = Number(response.headers?.get?.("x-ratelimit-requests-reset") ?? NaN);
  if (!Number.isFinite(reset)) return 1000;
  return Math.min(Math.max(reset - now, 0), MAX_WAIT_MS);
}

type GraphQLCall = (...args: unknown[]) => Promise<unknown>;

/** Creates the Linear adapter (imports it) with Bub's signature check and rate-limit retry. */
export async function createLinearAdapter(settings: LinearAdapterSettings): Promise<Adapter> {
  const { LinearAdapter } = await import("@chat-adapter/linear");
  const { logger, webhookSecret } = settings;
  const common = {
    webhookVerifier: (request: Request, body: string) =>
      verifyLinearWebhook(webhookSecret, request.headers, body),
    userName: settings.userName,
    apiUrl: settings.apiBase ?? LINEAR_API_URL,
    mode: "comments" as const,
    logger,
  };

  class BubLinearAdapter extends LinearAdapter {
    /** Wraps the GraphQL client's two request functions with the rate-limit retry. */
    retryRateLimits(): this {
      const client = this.defaultClient?.client as unknown as Record<string, GraphQLCall>;
      for (const name of ["request", "rawRequest"]) {
        const call = client[name]!.bind(client);
        client[name] = async (...args) => {
          for (let attempt = 1;; attempt++) {
            try {
              return await call(...args);
            } catch (error) {
              const wait = linearRetryMs(error);
              if (wait === null || attempt >= RATE_LIMIT_TRIES) throw error;
              logger.warn(`Linear rate limit: retrying in ${wait} ms`);
              await new Promise((resolve) => setTimeout(resolve, wait));
            }
          }
        };
      }
      return this;
    }

    /** Runs the `fileUpload` mutation (see `_linear_media.ts`); null without a client. */
    async uploadFile(
      contentType: string,
      filename: string,
      size: number,
    ): Promise<LinearUploadFile | null> {
      const client = this.defaultClient;
      if (!client) return null;
      const payload = await client.fileUpload(contentType, filename, size);
      return payload.uploadFile ?? null;
    }
  }

  const adapter = settings.accessToken
    ? new BubLinearAdapter({ ...common, accessToken: settings.accessToken })
    : new BubLinearAdapter({ ...common, apiKey: settings.apiKey ?? "" });
  return adapter.retryRateLimits() as unknown as Adapter;
}
