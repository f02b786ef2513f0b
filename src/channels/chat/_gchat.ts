/**
 * Google Chat through the Chat SDK's adapter (`@chat-adapter/gchat`, imported when the channel
 * starts), as an HTTP-endpoint Chat app: Google posts interaction events (messages, button
 * clicks, in the Workspace Add-ons event shape the adapter reads) to `POST /webhooks/gchat` with
 * a Bearer JWT, and answers go out through the Chat REST API with a service account's token.
 *
 * The adapter verifies the JWT itself: with `project_number`, a token self-signed by
 * `chat@system.gserviceaccount.com` whose audience is the project number, checked against that
 * account's published certificates; with `endpoint_url`, a Google OIDC token for that URL from
 * `chat@system.gserviceaccount.com` or the app's own Workspace add-on account
 * (`addon_service_account`; add-on apps, whose event shape this adapter reads, always use it).
 * Four fixed Google URLs stand between it and an offline test, and Bub points each elsewhere
 * through a seam, only when set:
 * - `api_base`: the Chat API root (the adapter's own `apiUrl`);
 * - `certs_url`: the certificates of `chat@system.gserviceaccount.com` (the adapter fetches a
 *   constant URL; Bub replaces that one fetch, the verification stays the adapter's);
 * - `oidc_certs_url`: Google's OIDC certificates (google-auth-library's OAuth2 client takes the
 *   URL from its public `endpoints`, which Bub sets on the adapter's client);
 * - `token_url`: the service account's JWT bearer grant (google-auth-library sends it to a
 *   constant `https://oauth2.googleapis.com/token`; Bub redirects that one request with a
 *   request interceptor of the auth client's Gaxios transporter).
 *
 * The transporter's interceptor also lets a message create (POST) or edit (PATCH) answered 429 be
 * retried as Gaxios retries GET and PUT (3 tries, backing off): Gaxios leaves those verbs alone and
 * the adapter would throw, losing the answer; a 429 means nothing was done, so the retry cannot
 * double a message.
 *
 * Media (`_gchat_media.ts`): attachments are fetched with the service account's token through
 * {@link GoogleChatMediaAdapter.accessToken}; an answer's files, which a Chat app cannot upload,
 * become notes in its text (the adapter would drop them with a warning in the log).
 *
 * @module
 */
import { readFileSync } from "node:fs";
import type { Adapter, AdapterPostableMessage, Logger } from "chat";
import { BubError } from "../../kernel/errors.ts";
import { withoutFiles } from "./_gchat_media.ts";

/** Google's token endpoint, where google-auth-library sends the JWT bearer grant. */
export const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";

/** What {@link createGoogleChatAdapter} needs. */
export interface GoogleChatAdapterSettings {
  /** The service account key: its JSON, or the path of its JSON file. */
  readonly credentials: string;
  /** The Google Cloud project number (the audience of Google Chat's tokens). */
  readonly projectNumber: string | null;
  /** The app's HTTP endpoint URL (an accepted audience; routes button clicks). */
  readonly endpointUrl: string | null;
  /** The app's user resource name (`users/123…`): tells its own messages and mentions apart. */
  readonly botUserId: string | null;
  /** The bot's user name (mentions are normalized to `@<user_name>`). */
  readonly userName: string;
  /** The Chat API root, null = Google's. */
  readonly apiBase: string | null;
  /** The token endpoint, null = Google's. */
  readonly tokenUrl: string | null;
  /** The certificates of `chat@system.gserviceaccount.com`, null = Google's. */
  readonly certsUrl: string | null;
  /** The app's Workspace add-on service account (`service-<n>@gcp-sa-gsuiteaddons…`). */
  readonly addOnServiceAccount: string | null;
  /** Google's OIDC certificates (PEM), null = Google's. */
  readonly oidcCertsUrl: string | null;
  /** The SDK's logger. */
  readonly logger: Logger;
}

/** A service account key's fields the adapter uses. */
interface ServiceAccount {
  client_email: string;
  private_key: string;
  project_id?: string;
}

/** Parses the service account key (its JSON or a file path); never echoes the key. */
export function parseServiceAccount(value: string): ServiceAccount {
  const text = value.trim();
  let json = text;
  if (!text.startsWith("{")) {
    try {
      json = readFileSync(text, "utf8");
    } catch (error) {
      throw new BubError(
        "config",
        `Cannot read the Google Chat service account key file ${JSON.stringify(text)} ` +
          `(BUB_GCHAT_CREDENTIALS): ${(error as Error).message}`,
        { platform: "gchat" },
      );
    }
  }
  let data: Partial<ServiceAccount> = {};
  try {
    data = JSON.parse(json) as Partial<ServiceAccount>;
  } catch { /* reported below */ }
  if (typeof data?.client_email !== "string" || typeof data?.private_key !== "string") {
    throw new BubError(
      "config",
      "BUB_GCHAT_CREDENTIALS must be a service account key (JSON with client_email and " +
        "private_key) or the path of one",
      { platform: "gchat" },
    );
  }
  return data as ServiceAccount;
}

/** The parts of a Gaxios request config the interceptor touches. */
interface GaxiosConfig {
  url?: URL | string;
  method?: string;
  retryConfig?: Record<string, unknown>;
}

/** The Gaxios transporter of the adapter's auth client (its public interceptor API). */
interface GaxiosTransporter {
  interceptors: {
    request: Set<{ resolved?: (config: GaxiosConfig) => Promise<GaxiosConfig> }>;
  };
}

/** A Google Chat adapter whose service account token fetches attachments. */
export interface GoogleChatMediaAdapter extends Adapter {
  /** The service account's access token (cached and renewed by google-auth-library). */
  accessToken(): Promise<string>;
}

/** Creates the Google Chat adapter (imports it) with Bub's endpoints and POST retry. */
export async function createGoogleChatAdapter(
  settings: GoogleChatAdapterSettings,
): Promise<GoogleChatMediaAdapter> {
  const { GoogleChatAdapter } = await import("@chat-adapter/gchat");
  // Every option is given, empty when unset: the adapter would otherwise fall back to its
  // GOOGLE_CHAT_* environment variables behind Bub's settings (one of them switches off the
  // verification of Pub/Sub pushes, which Bub does not serve).
  const adapter = new GoogleChatAdapter({
    credentials: parseServiceAccount(settings.credentials),
    googleChatProjectNumber: settings.projectNumber ?? "",
    ...(settings.endpointUrl ? { endpointUrl: settings.endpointUrl } : {}),
    botUserId: settings.botUserId ?? "",
    workspaceAddOnServiceAccountEmail: settings.addOnServiceAccount ?? "",
    apiUrl: settings.apiBase ?? "https://chat.googleapis.com/",
    pubsubTopic: "",
    pubsubAudience: "",
    pubsubServiceAccountEmail: "",
    impersonateUser: "",
    disableSignatureVerification: false,
    userName: settings.userName,
    logger: settings.logger,
  });
  // No Workspace Events subscriptions (Pub/Sub): the adapter would warn on every new thread.
  Object.defineProperty(adapter, "onThreadSubscribe", { value: () => Promise.resolve() });
  const certsUrl = settings.certsUrl;
  if (certsUrl) {
    let cached: { certs: unknown; at: number } | null = null;
    // The adapter's (private) fetch of a constant URL; same hourly cache.
    Object.defineProperty(adapter, "getChatIssuerCerts", {
      value: async () => {
        if (cached && Date.now() - cached.at < 3_600_000) return cached.certs;
        const response = await fetch(certsUrl);
        if (!response.ok) {
          await response.body?.cancel();
          throw new Error(
            `Failed to fetch Google Chat issuer certificates: HTTP ${response.status}`,
          );
        }
        cached = { certs: await response.json(), at: Date.now() };
        return cached.certs;
      },
    });
  }
  if (settings.oidcCertsUrl) {
    // The adapter's (private) OAuth2 client checks endpoint-URL tokens against this URL.
    const oauth2 = (adapter as unknown as {
      oauth2Client: { endpoints: { oauth2FederatedSignonPemCertsUrl: string } };
    }).oauth2Client;
    oauth2.endpoints.oauth2FederatedSignonPemCertsUrl = settings.oidcCertsUrl;
  }
  const authClient = (adapter as unknown as {
    authClient: {
      transporter: GaxiosTransporter;
      getAccessToken(): Promise<{ token?: string | null }>;
    };
  }).authClient;
  Object.defineProperty(adapter, "accessToken", {
    value: async () => {
      const { token } = await authClient.getAccessToken();
      if (!token) throw new Error("Google Chat: the service account got no access token");
      return token;
    },
  });
  // Files of an answer become notes: the Chat API takes uploads from signed-in users only.
  const post = adapter.postMessage.bind(adapter);
  Object.defineProperty(adapter, "postMessage", {
    value: (threadId: string, message: AdapterPostableMessage) =>
      post(threadId, withoutFiles(message)),
  });
  const transporter = authClient.transporter;
  const tokenUrl = settings.tokenUrl;
  const method = (config: GaxiosConfig) => (config.method ?? "GET").toUpperCase();
  transporter.interceptors.request.add({
    resolved: (config) => {
      if (tokenUrl && String(config.url) === GOOGLE_TOKEN_URL) config.url = new URL(tokenUrl);
      else if (/^(POST|PATCH)$/.test(method(config)) && !config.retryConfig?.httpMethodsToRetry) {
        config.retryConfig = {
          ...config.retryConfig,
          httpMethodsToRetry: [method(config)],
          statusCodesToRetry: [[429, 429]],
        };
      }
      return Promise.resolve(config);
    },
  });
  return adapter as unknown as GoogleChatMediaAdapter;
}
