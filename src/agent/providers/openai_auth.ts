/**
 * A ChatGPT login (`bub login openai`): {@link OpenAIAuth} hands out a valid access token,
 * refreshed before it expires and once after the backend refused it, the new tokens written
 * back (the grants themselves: `openai_token_grants.ts`). Two processes refreshing at once take
 * turns through a lock file and re-read the file first, so the one that comes second uses the
 * tokens the first obtained instead of spending a refresh token that was already used. Every
 * token read or obtained joins the process-wide secret list, so no log, error line or tape
 * record prints it.
 *
 * @module
 */
import { homedir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { expandHome } from "../../_internal/home.ts";
import { BubError } from "../../kernel/errors.ts";
import type { FetchLike } from "./_request_body.ts";
import {
  type OpenAITokens,
  readTokenFile,
  removeTokenFile,
  withFileLock,
  writeTokenFile,
} from "./_openai_token_file.ts";
import { issuerOf, rememberSecrets, tokenGrant } from "./openai_token_grants.ts";

export type { OpenAITokens } from "./_openai_token_file.ts";
export {
  type CodeExchange,
  DEFAULT_OPENAI_AUTH_BASE,
  exchangeAuthorizationCode,
  OPENAI_AUTH_CLIENT_ID,
  type TokenRequestOptions,
} from "./openai_token_grants.ts";

/** An access token this close to its expiry (ms) is refreshed before use. */
const REFRESH_MARGIN_MS = 120_000;

/** Where a ChatGPT login is stored and who refreshes it. */
export interface OpenAIAuthLocation {
  /** The token file, `<BUB_HOME>/auth/openai.json`. */
  file: string;
  /** The issuer base URL (default {@link DEFAULT_OPENAI_AUTH_BASE}). */
  issuer?: string | null;
}

/** Options of {@link OpenAIAuth}. */
export interface OpenAIAuthOptions extends OpenAIAuthLocation {
  /** The `fetch` of token requests (default the global one). */
  fetch?: FetchLike;
  /** The clock (ms since the epoch). */
  now?: () => number;
}

/** What a request to the ChatGPT backend is sent with. */
export interface OpenAICredentials {
  /** The bearer. */
  accessToken: string;
  /** The `chatgpt-account-id` header. */
  accountId: string | null;
}

/**
 * The tokens of a ChatGPT login in one file, handed out valid.
 *
 * @example
 * ```ts
 * import { OpenAIAuth } from "./openai_auth.ts";
 * const auth = new OpenAIAuth({ file: "/tmp/bub-example/auth/openai.json" });
 * console.assert((await auth.load()) === null); // not logged in
 * ```
 */
export class OpenAIAuth {
  /** The token file. */
  readonly file: string;
  /** The issuer base URL, without a trailing `/`. */
  readonly issuer: string;
  #fetch: FetchLike | undefined;
  #now: () => number;
  #refreshing: Promise<OpenAITokens> | null = null;

  /** Creates the object; nothing is read yet. */
  constructor(options: OpenAIAuthOptions) {
    this.file = options.file;
    this.issuer = issuerOf(options.issuer);
    this.#fetch = options.fetch;
    this.#now = options.now ?? Date.now;
  }

  /** The stored tokens, or null when not logged in. */
  async load(): Promise<OpenAITokens | null> {
    const tokens = await readTokenFile(this.file);
    return tokens && rememberSecrets(tokens);
  }

  /** Stores `tokens` (atomically, mode 0600). */
  async save(tokens: OpenAITokens): Promise<void> {
    await writeTokenFile(this.file, rememberSecrets(tokens));
  }

  /** Removes the login; false when there was none. */
  remove(): Promise<boolean> {
    return removeTokenFile(this.file);
  }

  /**
   * A valid access token and the account id. Refreshes first when the stored token expires
   * within two minutes or is `rejected` (the token the backend just answered 401 to).
   *
   * @throws {BubError} (`config`) when not logged in or the login was revoked
   */
  async credentials(
    options: { signal?: AbortSignal; rejected?: string } = {},
  ): Promise<OpenAICredentials> {
    const tokens = await this.load();
    if (tokens === null) {
      throw new BubError(
        "config",
        `Not logged in to ChatGPT: run 'bub login openai' (no ${this.file})`,
        { file: this.file },
      );
    }
    let current = tokens;
    if (this.#stale(tokens, options.rejected)) {
      this.#refreshing ??= this.#refresh(options).finally(() => {
        this.#refreshing = null;
      });
      current = await this.#refreshing;
    }
    return { accessToken: current.access_token, accountId: current.account_id };
  }

  #stale(tokens: OpenAITokens, rejected: string | undefined): boolean {
    if (rejected !== undefined && tokens.access_token === rejected) return true;
    const expires = Date.parse(tokens.expires_at);
    return !(expires - this.#now() > REFRESH_MARGIN_MS);
  }

  /** Refreshes under the lock; another process's fresh tokens, re-read, are used as they are. */
  #refresh(options: { signal?: AbortSignal; rejected?: string }): Promise<OpenAITokens> {
    return withFileLock(`${this.file}.lock`, async () => {
      const current = await this.load();
      if (current === null) {
        throw new BubError("config", `Not logged in to ChatGPT: run 'bub login openai'`, {
          file: this.file,
        });
      }
      if (!this.#stale(current, options.rejected)) return current;
      let fresh: OpenAITokens;
      try {
        fresh = await tokenGrant(
          {
            grant_type: "refresh_token",
            refresh_token: current.refresh_token,
            scope: "openid profile email",
          },
          { issuer: this.issuer, fetch: this.#fetch, signal: options.signal, now: this.#now },
          current,
        );
      } catch (error) {
        // The refresh failed for a passing reason: a token that still works is used meanwhile.
        const usable = options.rejected !== current.access_token &&
          Date.parse(current.expires_at) > this.#now();
        if (usable && BubError.isInstance(error) && error.kind !== "config") return current;
        throw error;
      }
      await writeTokenFile(this.file, fresh);
      return fresh;
    }, { signal: options.signal });
  }
}

/**
 * The login of the default Bub home: `<BUB_HOME>/auth/openai.json` (`BUB_HOME` read now, else
 * `~/.bub`), at the default issuer (`BUB_OPENAI_AUTH_BASE` read now, else
 * {@link DEFAULT_OPENAI_AUTH_BASE}).
 */
export function defaultOpenAIAuthLocation(): OpenAIAuthLocation {
  const home = process.env.BUB_HOME
    ? expandHome(process.env.BUB_HOME, homedir())
    : join(homedir(), ".bub");
  return { file: openAIAuthFile(home), issuer: process.env.BUB_OPENAI_AUTH_BASE || null };
}

/** The token file of a Bub home: `<home>/auth/openai.json`. */
export function openAIAuthFile(bubHome: string): string {
  return join(bubHome, "auth", "openai.json");
}

const shared = new Map<string, OpenAIAuth>();

/**
 * The one {@link OpenAIAuth} of a location in this process (its in-flight refresh is shared by
 * every caller).
 */
export function sharedOpenAIAuth(location: OpenAIAuthLocation): OpenAIAuth {
  const key = `${location.file}\0${issuerOf(location.issuer)}`;
  let auth = shared.get(key);
  if (auth === undefined) {
    auth = new OpenAIAuth(location);
    shared.set(key, auth);
  }
  return auth;
}
