/**
 * Who a PID is: on Linux, a process is named by its PID, its start time (field 22 of
 * `/proc/<pid>/stat`, clock ticks since boot) and the boot id
 * (`/proc/sys/kernel/random/boot_id`), so a PID reused after a restart (a container's PID 1)
 * is told apart from the process that recorded it. Elsewhere only the PID is known.
 *
 * Used by the file store's locks and by fork journals' owner tags (is the writer still running?).
 * Reads are synchronous: tiny procfs reads, done when a lock is contended or a journal's owner is
 * asked about (and once per process for its own identity).
 *
 * @module
 */
import { readFileSync } from "node:fs";
import process from "node:process";

/** A process's identity; `startTicks` and `bootId` are null where the system does not say. */
export interface ProcessIdentity {
  /** The process id. */
  pid: number;
  /** Start time in clock ticks after boot (Linux), or null. */
  startTicks: string | null;
  /** The kernel's boot id (Linux), or null. */
  bootId: string | null;
}

function _readQuiet(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/** The boot id of the running kernel, or null (no procfs). */
export function currentBootId(): string | null {
  const text = _readQuiet("/proc/sys/kernel/random/boot_id")?.trim();
  return text ? text : null;
}

/** Field 22 (`starttime`) of `/proc/<pid>/stat`, or null (no such process, or no procfs). */
export function processStartTicks(pid: number): string | null {
  const text = _readQuiet(`/proc/${pid}/stat`);
  if (text === null) return null;
  // The command name (field 2) is in parentheses and may hold spaces or parentheses itself.
  const rest = text.slice(text.lastIndexOf(")") + 1).trim().split(/\s+/);
  const value = rest[22 - 3];
  return value && /^\d+$/.test(value) ? value : null;
}

/** Seconds since the epoch at which the kernel booted (`btime` of `/proc/stat`), or null. */
export function bootTimeSeconds(): number | null {
  const match = _readQuiet("/proc/stat")?.match(/^btime\s+(\d+)$/m);
  return match ? Number(match[1]) : null;
}

let own: ProcessIdentity | undefined;

/** This process's identity (computed once). */
export function ownIdentity(): ProcessIdentity {
  own ??= {
    pid: process.pid,
    startTicks: processStartTicks(process.pid),
    bootId: currentBootId(),
  };
  return own;
}

/** The identity of live process `pid` as the system reports it now. */
export function identityOf(pid: number): ProcessIdentity {
  return { pid, startTicks: processStartTicks(pid), bootId: currentBootId() };
}
