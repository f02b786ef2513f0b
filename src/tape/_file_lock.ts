/**
 * A cross-process lock file: created exclusively (`wx`) with `<pid>:<token>` inside, removed on
 * release. A lock whose process is gone is broken under a second "breaker" lock, so two
 * waiters never both break it.
 *
 * @module
 */
import { open, readFile, stat, unlink } from "node:fs/promises";
import process from "node:process";
import { BubError } from "../kernel/errors.ts";
import { delay } from "../_internal/async.ts";

/** Options of {@link withFileLock}. */
export interface FileLockOptions {
  /** Give up after this many milliseconds (default 30 000). */
  timeoutMs?: number;
  /** Aborts waiting. */
  signal?: AbortSignal;
  /** Names the tape in errors. */
  what: string;
}

const EMPTY_LOCK_GRACE_MS = 2_000;

function _code(error: unknown): string | undefined {
  return (error as { code?: string } | null)?.code;
}

function _alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return _code(error) === "EPERM";
  }
}

async function _tryCreate(path: string, content: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, "wx");
  } catch (error) {
    if (_code(error) === "EEXIST") return false;
    throw error;
  }
  try {
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
  return true;
}

async function _read(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if (_code(error) === "ENOENT") return null;
    throw error;
  }
}

async function _isStale(path: string, content: string): Promise<boolean> {
  const pid = Number(content.split(":")[0]);
  if (content !== "" && Number.isInteger(pid) && pid > 0) return !_alive(pid);
  // Created but not yet written (or written by a process killed in between): stale after a grace.
  try {
    return Date.now() - (await stat(path)).mtimeMs > EMPTY_LOCK_GRACE_MS;
  } catch {
    return false;
  }
}

async function _breakStale(path: string, seen: string): Promise<void> {
  const breaker = `${path}.break`;
  if (!await _tryCreate(breaker, `${process.pid}:break`)) {
    const other = await _read(breaker);
    if (other !== null && await _isStale(breaker, other)) await unlink(breaker).catch(() => {});
    return;
  }
  try {
    if (await _read(path) === seen) await unlink(path).catch(() => {});
  } finally {
    await unlink(breaker).catch(() => {});
  }
}

/** Runs `fn` holding the lock file `path`; waits (with backoff) while another holder has it. */
export async function withFileLock<T>(
  path: string,
  fn: () => Promise<T>,
  options: FileLockOptions,
): Promise<T> {
  const token = `${process.pid}:${crypto.randomUUID()}`;
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let wait = 1;
  while (!await _tryCreate(path, token)) {
    options.signal?.throwIfAborted();
    const content = await _read(path);
    if (content !== null && await _isStale(path, content)) {
      await _breakStale(path, content);
      continue;
    }
    if (Date.now() > deadline) {
      throw new BubError(
        "temporary",
        `Cannot lock ${options.what}: lock file ${JSON.stringify(path)} is held by ${
          JSON.stringify(content)
        }`,
      );
    }
    await delay(wait + Math.random() * wait, { signal: options.signal });
    wait = Math.min(wait * 2, 25);
  }
  try {
    return await fn();
  } finally {
    if (await _read(path) === token) await unlink(path).catch(() => {});
  }
}
