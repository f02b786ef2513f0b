/**
 * The device-code login of `bub login openai --device`, for machines without a browser, as
 * OpenAI's Codex CLI runs it: Bub asks the issuer for a user code, the user enters it at
 * `<issuer>/codex/device` on any device, and Bub polls (at the interval the issuer asks for)
 * until the sign-in is approved. The answer is an authorization code with its PKCE pair, exchanged
 * for tokens like the browser login's. Pending polls wait; `slow_down` lengthens the interval;
 * an expired or refused code ends the login with a message saying so.
 *
 * @module
 */
import { delay } from "../../_internal/async.ts";
import { isRecord } from "../../_internal/object.ts";
import { BubError } from "../../kernel/errors.ts";
import {
  exchangeAuthorizationCode,
  OPENAI_AUTH_CLIENT_ID,
  type OpenAITokens,
} from "../../agent/providers/openai_auth.ts";
import type { FetchLike } from "../../agent/providers/provider_model_client.ts";

/** How long a device code lasts when the issuer does not say (ms). */
const DEFAULT_LIFETIME_MS = 15 * 60_000;
/** The polling interval when the issuer names none (s). */
const DEFAULT_INTERVAL_S = 5;

/** What the user is shown. */
export interface DeviceCodePrompt {
  /** Where to enter the code. */
  verificationUrl: string;
  /** The one-time code. */
  userCode: string;
  /** Minutes until the code expires. */
  expiresInMinutes: number;
}

/** Options of {@link deviceLogin}. */
export interface DeviceLoginOptions {
  /** The issuer base URL. */
  issuer: string;
  /** Shows the code and the URL to the user; never throws. */
  showCode: (prompt: DeviceCodePrompt) => void;
  /** Cancels the login. */
  signal?: AbortSignal;
  /** The `fetch` of every request. */
  fetch?: FetchLike;
  /** The clock (ms since the epoch). */
  now?: () => number;
}

async function postJson(
  fetchFn: FetchLike,
  url: string,
  body: unknown,
  signal: AbortSignal | undefined,
): Promise<{ status: number; data: Record<string, unknown> }> {
  const response = await fetchFn(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(body),
    signal,
  });
  const text = await response.text();
  let data: unknown = null;
  try {
    data = JSON.parse(text);
  } catch { /* not JSON */ }
  return { status: response.status, data: isRecord(data) ? data : {} };
}

/** The error code of a poll answer (`{error: "slow_down"}` or `{error: {code: ...}}`). */
function errorCode(data: Record<string, unknown>): string {
  const error = data.error;
  if (typeof error === "string") return error;
  if (isRecord(error) && typeof error.code === "string") return error.code;
  return "";
}

function seconds(value: unknown): number | null {
  const number = typeof value === "string" ? Number(value.trim()) : value;
  return typeof number === "number" && Number.isFinite(number) && number >= 0 ? number : null;
}

/**
 * Runs the device-code login and returns the tokens.
 *
 * @throws {BubError} (`config`) when the issuer has no device login, the code expired or the
 *   user refused; (`provider`, `temporary`) when a request fails
 */
export async function deviceLogin(options: DeviceLoginOptions): Promise<OpenAITokens> {
  const fetchFn = options.fetch ?? globalThis.fetch;
  const now = options.now ?? Date.now;
  const api = `${options.issuer}/api/accounts/deviceauth`;
  const start = await postJson(
    fetchFn,
    `${api}/usercode`,
    { client_id: OPENAI_AUTH_CLIENT_ID },
    options.signal,
  );
  if (start.status === 404) {
    throw new BubError(
      "config",
      `${options.issuer} offers no device-code login: sign in with the browser ('bub login openai' without --device)`,
    );
  }
  const deviceId = start.data.device_auth_id;
  const userCode = start.data.user_code ?? start.data.usercode;
  if (start.status !== 200 || typeof deviceId !== "string" || typeof userCode !== "string") {
    throw new BubError(
      start.status >= 500 ? "temporary" : "provider",
      `The device-code request to ${api}/usercode failed with HTTP ${start.status}`,
      { status_code: start.status },
    );
  }
  let interval = seconds(start.data.interval) ?? DEFAULT_INTERVAL_S;
  const lifetime = seconds(start.data.expires_in);
  const expiresAt = typeof start.data.expires_at === "string"
    ? Date.parse(start.data.expires_at)
    : now() + (lifetime !== null ? lifetime * 1000 : DEFAULT_LIFETIME_MS);
  options.showCode({
    verificationUrl: `${options.issuer}/codex/device`,
    userCode,
    expiresInMinutes: Math.max(1, Math.round((expiresAt - now()) / 60_000)),
  });
  const expired = () =>
    new BubError(
      "config",
      "The device code expired before the sign-in was approved: run 'bub login openai --device' again",
    );
  while (true) {
    if (now() >= expiresAt) throw expired();
    await delay(interval * 1000, { signal: options.signal });
    const poll = await postJson(
      fetchFn,
      `${api}/token`,
      { device_auth_id: deviceId, user_code: userCode },
      options.signal,
    );
    if (poll.status === 200) {
      const { authorization_code: code, code_verifier: verifier } = poll.data;
      if (typeof code !== "string" || typeof verifier !== "string") {
        throw new BubError("provider", `The device-code answer of ${api}/token has no code`);
      }
      return await exchangeAuthorizationCode({
        issuer: options.issuer,
        code,
        codeVerifier: verifier,
        redirectUri: `${options.issuer}/deviceauth/callback`,
        fetch: options.fetch,
        signal: options.signal,
      });
    }
    const code = errorCode(poll.data);
    if (code.includes("slow_down")) {
      interval = seconds(poll.data.interval) ?? interval + 5;
    } else if (code.includes("expired")) {
      throw expired();
    } else if (code.includes("denied")) {
      throw new BubError("config", "The sign-in was refused at the verification page");
    } else if (!(code.includes("pending") || poll.status === 403 || poll.status === 404)) {
      throw new BubError(
        poll.status >= 500 ? "temporary" : "provider",
        `Polling ${api}/token failed with HTTP ${poll.status}${code ? `: ${code}` : ""}`,
        { status_code: poll.status },
      );
    }
  }
}
