/**
 * Private: the file of a ChatGPT login (`<BUB_HOME>/auth/openai.json`). It is read and written
 * whole: written to a temporary file (mode 0600) in its directory (mode 0700), then renamed over
 * the old one, so a reader sees the old tokens or the new ones, never half of either. A lock file
 * beside it lets one process at a time refresh; the claims of the tokens give the ChatGPT account
 * id and the expiry.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { chmod, mkdir, open, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import process from "node:process";
import { delay } from "../../_internal/async.ts";
import { isRecord } from "../../_internal/object.ts";
import { BubError } from "../../kernel/errors.ts";

/** The tokens of a ChatGPT login, as stored (snake_case: a data file). */
export interface OpenAITokens {
  /** The bearer sent to the ChatGPT backend. */
  access_token: string;
  /** Gets the next access token; each refresh may replace it. */
  refresh_token: string;
  /** The OpenID token (its claims name the ChatGPT account), when the issuer sent one. */
  id_token: string | null;
  /** The ChatGPT account id (`chatgpt-account-id` header), or null when no token names one. */
  account_id: string | null;
  /** When the access token expires (RFC 3339). */
  expires_at: string;
  /** When the tokens were last obtained (RFC 3339). */
  last_refresh: string;
}

/** The claim holding the ChatGPT account of an OpenAI token. */
const AUTH_CLAIM = "https://api.openai.com/auth";

/** The payload of a JWT, or null when `token` is not one. */
export function jwtClaims(token: string | null | undefined): Record<string, unknown> | null {
  const part = token?.split(".")[1];
  if (!part) return null;
  try {
    const claims: unknown = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
    return isRecord(claims) ? claims : null;
  } catch {
    return null;
  }
}

/** The ChatGPT account id named by the first of `tokens` that names one, else null. */
export function accountIdOf(...tokens: Array<string | null | undefined>): string | null {
  for (const token of tokens) {
    const auth = jwtClaims(token)?.[AUTH_CLAIM];
    const id = isRecord(auth) ? auth.chatgpt_account_id : undefined;
    if (typeof id === "string" && id !== "") return id;
  }
  return null;
}

/** Milliseconds since the epoch at which a JWT expires (its `exp`), or null. */
export function jwtExpiry(token: string | null | undefined): number | null {
  const exp = jwtClaims(token)?.exp;
  return typeof exp === "number" && Number.isFinite(exp) ? exp * 1000 : null;
}

/** `text` read as stored tokens, or a `BubError(config)` saying what is wrong with the file. */
function parseTokens(file: string, text: string): OpenAITokens {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = null;
  }
  const ok = isRecord(data) && typeof data.access_token === "string" &&
    typeof data.refresh_token === "string" && typeof data.expires_at === "string";
  if (!ok) {
    throw new BubError(
      "config",
      `The ChatGPT login file ${file} is not valid: run 'bub login openai' again`,
      { file },
    );
  }
  const record = data as Record<string, unknown>;
  const text_ = (key: string) => typeof record[key] === "string" ? record[key] as string : null;
  return {
    access_token: record.access_token as string,
    refresh_token: record.refresh_token as string,
    id_token: text_("id_token"),
    account_id: text_("account_id"),
    expires_at: record.expires_at as string,
    last_refresh: text_("last_refresh") ?? record.expires_at as string,
  };
}

/** The stored tokens, or null when there is no file. */
export async function readTokenFile(file: string): Promise<OpenAITokens | null> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return null;
    throw error;
  }
  return parseTokens(file, text);
}

/**
 * Writes `tokens` atomically: a temporary file with mode 0600 in the directory (created with
 * mode 0700, or set to it), renamed over `file`.
 */
export async function writeTokenFile(file: string, tokens: OpenAITokens): Promise<void> {
  const dir = dirname(file);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (process.platform !== "win32") await chmod(dir, 0o700);
  const temp = `${file}.${process.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    await writeFile(temp, JSON.stringify(tokens, null, 2) + "\n", { mode: 0o600, flag: "wx" });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Removes the file; false when there was none. */
export async function removeTokenFile(file: string): Promise<boolean> {
  try {
    await rm(file);
    return true;
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return false;
    throw error;
  }
}

/** Options of {@link withFileLock}. */
export interface FileLockOptions {
  /** Stops waiting for the lock. */
  signal?: AbortSignal;
  /**
   * A lock older than this (ms; default 45 s, longer than a token request may take) was left by
   * a process that died: it is taken over.
   */
  staleMs?: number;
  /** Longest wait for the lock (ms). */
  waitMs?: number;
}

/**
 * Runs `fn` holding `lock`, a file created exclusively (`wx`) and removed afterwards. Another
 * process holding it is waited for; a lock older than `staleMs` is taken over.
 */
export async function withFileLock<T>(
  lock: string,
  fn: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const { signal, staleMs = 45_000, waitMs = 60_000 } = options;
  const deadline = Date.now() + waitMs;
  await mkdir(dirname(lock), { recursive: true, mode: 0o700 });
  while (true) {
    signal?.throwIfAborted();
    try {
      const handle = await open(lock, "wx", 0o600);
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      break;
    } catch (error) {
      if ((error as { code?: unknown }).code !== "EEXIST") throw error;
    }
    const age = await stat(lock).then((s) => Date.now() - s.mtimeMs, () => 0);
    if (age > staleMs) {
      await rm(lock, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new BubError(
        "temporary",
        `Cannot refresh the ChatGPT login: ${lock} is held by another process`,
        { lock },
      );
    }
    await delay(25 + Math.random() * 25, { signal });
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { force: true });
  }
}
