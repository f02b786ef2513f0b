/**
 * A cross-process lock file: created exclusively (`wx`), or linked from a store's template
 * file (`_lock_template.ts`, same content, no new inode), with `<pid>:<token>:<start>:<boot>`
 * inside (the holder's PID, a random token, and on Linux its start time and the boot id), removed
 * on release. A lock whose holder is gone is broken under a second "breaker" lock, so two
 * waiters never both break it. The holder is gone when no process has its PID, or when the
 * process that has it now is another one: it started at another time or under another boot
 * (a PID reused after a restart, like a container's PID 1). Lock files of the older
 * `<pid>:<token>` form count as stale when the process with that PID started after the file
 * was written.
 *
 * This protocol, not an OS advisory lock, is used on every runtime: Node and Bun offer no
 * `flock`, and processes of different runtimes share one tape folder.
 *
 * Creating and removing the small lock file are metadata operations of a few microseconds, done
 * with synchronous calls (each asynchronous one costs a thread-pool round trip, several per
 * append); waiting for another holder stays asynchronous. The holder keeps the lock file open and
 * checks it is still its own by its link count (one `fstat`), not by reading it back.
 *
 * @module
 */
import { closeSync, fstatSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { stat, unlink } from "node:fs/promises";
import process from "node:process";
import { BubError } from "../../kernel/errors.ts";
import { delay } from "../../_internal/async.ts";
import {
  bootTimeSeconds,
  currentBootId,
  processStartTicks,
} from "../../_internal/process_identity.ts";
import { lockContent, type LockTemplate } from "./_lock_template.ts";

/** Options of {@link withFileLock}. */
export interface FileLockOptions {
  /** Give up after this many milliseconds (default 30 000). */
  timeoutMs?: number;
  /** Aborts waiting. */
  signal?: AbortSignal;
  /** Names the tape in errors. */
  what: string;
  /** Takes the lock by linking this store's template (see `_lock_template.ts`). */
  template?: LockTemplate;
}

const EMPTY_LOCK_GRACE_MS = 2_000;
// procfs reports start times in USER_HZ ticks, 100 on every mainstream Linux architecture.
const TICKS_PER_SECOND = 100;
const LEGACY_START_SLACK_MS = 2_000;

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

/** Creates the lock file `path` holding `content`; its descriptor (kept open), or null when taken. */
function _create(path: string, content: string): number | null {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o600);
  } catch (error) {
    if (_code(error) === "EEXIST") return null;
    throw error;
  }
  try {
    const bytes = new TextEncoder().encode(content);
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written);
  } catch (error) {
    _closeQuiet(fd);
    _unlinkQuiet(path);
    throw error;
  }
  return fd;
}

function _tryCreate(path: string, content: string): boolean {
  const fd = _create(path, content);
  if (fd === null) return false;
  _closeQuiet(fd);
  return true;
}

function _closeQuiet(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed: nothing to release.
  }
}

/**
 * Removes our lock file `path`, open as `fd`, unless it is no longer ours: a lock file is only
 * ever linked under its one path (created with `wx`, never renamed or linked), so while its
 * descriptor is open it still has a link exactly when the path still names it; once a waiter
 * broke it (unlinked it), its link count is 0 and the path, if any, is another holder's file.
 * Open, its inode cannot be reused by that other file either.
 */
function _release(path: string, fd: number, token: string): void {
  try {
    const links = fstatSync(fd).nlink;
    // A runtime reporting no link count falls back to reading the lock file back.
    if (typeof links === "number" && links >= 0 ? links > 0 : _read(path) === token) {
      _unlinkQuiet(path);
    }
  } finally {
    _closeQuiet(fd);
  }
}

function _read(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if (_code(error) === "ENOENT") return null;
    throw error;
  }
}

function _unlinkQuiet(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone (or not ours to remove): nothing to release.
  }
}

/** True when the process holding a lock recorded as `content` is gone (or is another one now). */
function _holderGone(content: string, mtimeMs: number): boolean {
  const [pidText, , start, boot] = content.split(":");
  const pid = Number(pidText);
  if (!_alive(pid)) return true;
  const bootNow = currentBootId();
  if (boot && bootNow && boot !== bootNow) return true;
  const startNow = processStartTicks(pid);
  if (startNow === null) return false;
  if (start) return start !== startNow;
  // An older lock file without a start time: the PID was reused if its process started later.
  const bootSeconds = bootTimeSeconds();
  if (bootSeconds === null) return false;
  const startedMs = (bootSeconds + Number(startNow) / TICKS_PER_SECOND) * 1000;
  return startedMs > mtimeMs + LEGACY_START_SLACK_MS;
}

async function _isStale(path: string, content: string): Promise<boolean> {
  let mtimeMs: number;
  try {
    mtimeMs = (await stat(path)).mtimeMs;
  } catch {
    return false;
  }
  const pid = Number(content.split(":")[0]);
  if (content !== "" && Number.isInteger(pid) && pid > 0) return _holderGone(content, mtimeMs);
  // Created but not yet written (or written by a process killed in between): stale after a grace.
  return Date.now() - mtimeMs > EMPTY_LOCK_GRACE_MS;
}

async function _breakStale(path: string, seen: string): Promise<void> {
  const breaker = `${path}.break`;
  if (!_tryCreate(breaker, lockContent())) {
    const other = _read(breaker);
    if (other !== null && await _isStale(breaker, other)) await unlink(breaker).catch(() => {});
    return;
  }
  try {
    if (_read(path) === seen) _unlinkQuiet(path);
  } finally {
    _unlinkQuiet(breaker);
  }
}

/** Takes the lock `path` (linked from `template`, else created): its release, or null when held. */
function _take(path: string, template: LockTemplate | undefined): (() => void) | null {
  const linked = template?.tryLink(path) ?? null;
  if (linked !== null) return linked ? () => template!.release(path, linked) : null;
  const token = lockContent();
  const fd = _create(path, token);
  return fd === null ? null : () => _release(path, fd, token);
}

/** Runs `fn` holding the lock file `path`; waits (with backoff) while another holder has it. */
export async function withFileLock<T>(
  path: string,
  fn: () => Promise<T>,
  options: FileLockOptions,
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let wait = 1;
  let release: (() => void) | null;
  while ((release = _take(path, options.template)) === null) {
    options.signal?.throwIfAborted();
    const content = _read(path);
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
    release();
  }
}
