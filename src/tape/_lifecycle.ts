/**
 * Archive and reset of a tape and its sidecars (§5.7).
 *
 * @module
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { redactKnownSecrets } from "../_internal/secrets.ts";
import { BubError } from "../kernel/errors.ts";
import { utcStamp } from "../_internal/utc_text.ts";
import { entryLine } from "./file/_jsonl.ts";
import type { TapeMeta } from "./entry.ts";
import { TapeQuery } from "./query.ts";
import type { TapeStore } from "./store.ts";

/** What archive and reset read of a `Tape` (a `Tape` is one; kept narrow so tape.ts can import this). */
export interface LifecycleTape {
  /** The tape name. */
  readonly name: string;
  /** The store. */
  readonly store: TapeStore;
  /** Mounted sidecars (by name). */
  readonly sidecars: readonly { readonly name: string }[];
  /** Archive directory, or null. */
  readonly archivePath: string | null;
  /** The clock for archive stamps. */
  readonly clock: () => Date;
  /** The tape name of one mounted sidecar. */
  sidecarTapeName(name: string): string;
  /** Appends `event {name, data}`. */
  appendEvent(name: string, data: Record<string, unknown>, meta?: TapeMeta): Promise<void>;
  /** Appends the anchor and handoff event. */
  handoff(options: { name: string; state?: Record<string, unknown> }): Promise<unknown>;
}

/** An error's message for the tape, with known secrets redacted. */
function _message(error: unknown): string {
  return redactKnownSecrets(error instanceof Error ? error.message : String(error));
}

/** Writes every entry of `tapeName` to `<archivePath>/<tapeName>.jsonl.<stamp>.bak`. */
export async function writeArchive(
  tape: LifecycleTape,
  tapeName: string,
  stamp: string,
): Promise<string> {
  if (!tape.archivePath) {
    throw new BubError(
      "config",
      `Cannot archive tape ${JSON.stringify(tapeName)}: no archive path is configured`,
      {
        tape: tapeName,
      },
    );
  }
  const entries = await new TapeQuery(tapeName, tape.store).all();
  await mkdir(tape.archivePath, { recursive: true, mode: 0o700 });
  const path = join(tape.archivePath, `${tapeName}.jsonl.${stamp}.bak`);
  await writeFile(path, entries.map(entryLine).join(""), { mode: 0o600 });
  return path;
}

interface _Outcome {
  archive: Record<string, unknown> | null;
  reset: Record<string, unknown>;
  archived: string | null;
  archiveError: string | null;
  resetError: string | null;
}

async function _sidecarCycle(
  tape: LifecycleTape,
  name: string,
  archive: boolean,
  reason: string,
  stamp: string,
  resetIt: boolean,
): Promise<_Outcome> {
  const tapeName = tape.sidecarTapeName(name);
  const out: _Outcome = {
    archive: null,
    reset: {},
    archived: null,
    archiveError: null,
    resetError: null,
  };
  if (archive) {
    try {
      out.archived = await writeArchive(tape, tapeName, stamp);
      out.archive = { sidecar: name, status: "ok", reason, archive: out.archived };
    } catch (error) {
      out.archiveError = _message(error);
      out.archive = { sidecar: name, status: "error", reason, error: out.archiveError };
    }
  }
  if (!resetIt) return out;
  if (out.archiveError !== null) {
    out.reset = { sidecar: name, status: "skipped", reason, cause: "archive_failed" };
    return out;
  }
  try {
    await tape.store.reset(tapeName);
    out.reset = { sidecar: name, status: "ok", reason };
  } catch (error) {
    out.resetError = _message(error);
    out.reset = { sidecar: name, status: "error", reason, error: out.resetError };
  }
  return out;
}

async function _record(tape: LifecycleTape, outcome: _Outcome, withReset: boolean): Promise<void> {
  if (outcome.archive) {
    await tape.appendEvent("sidecar.archive", outcome.archive, { context: false });
  }
  if (withReset) await tape.appendEvent("sidecar.reset", outcome.reset, { context: false });
}

/** `Tape.reset`: optional archive, reset, bootstrap handoff, then every sidecar. */
export async function resetTape(tape: LifecycleTape, archive: boolean): Promise<string> {
  const name = tape.name;
  const stamp = utcStamp(tape.clock());
  let archived: string | null = null;
  const sidecarArchives = new Map<string, _Outcome>();
  if (archive) {
    archived = await writeArchive(tape, name, stamp);
    for (const sidecar of tape.sidecars) {
      sidecarArchives.set(
        sidecar.name,
        await _sidecarCycle(tape, sidecar.name, true, "tape.reset", stamp, false),
      );
    }
  }
  await tape.store.reset(name);
  await tape.handoff({
    name: "session/start",
    state: { owner: "human", ...(archived ? { archived } : {}) },
  });
  for (const sidecar of tape.sidecars) {
    const prior = sidecarArchives.get(sidecar.name);
    let outcome: _Outcome;
    if (prior && prior.archiveError !== null) {
      const skipped = {
        sidecar: sidecar.name,
        status: "skipped",
        reason: "tape.reset",
        cause: "archive_failed",
      };
      outcome = { ...prior, reset: skipped };
    } else {
      outcome = await _sidecarCycle(tape, sidecar.name, false, "tape.reset", stamp, true);
      outcome.archive = prior?.archive ?? null;
    }
    await _record(tape, outcome, true);
  }
  return archived ? `Archived: ${archived}` : "ok";
}

/** `Tape.archiveSidecar`. */
export async function archiveSidecar(
  tape: LifecycleTape,
  name: string,
  reason: string,
): Promise<string> {
  const outcome = await _sidecarCycle(tape, name, true, reason, utcStamp(tape.clock()), false);
  await _record(tape, outcome, false);
  return outcome.archiveError !== null
    ? `${name} archive failed: ${outcome.archiveError}`
    : `Archived ${name}: ${outcome.archived}`;
}

/** `Tape.resetSidecar`. */
export async function resetSidecar(
  tape: LifecycleTape,
  name: string,
  archive: boolean,
  reason: string,
): Promise<string> {
  const outcome = await _sidecarCycle(tape, name, archive, reason, utcStamp(tape.clock()), true);
  await _record(tape, outcome, true);
  if (outcome.resetError !== null) return `${name} reset failed: ${outcome.resetError}`;
  if (outcome.archiveError !== null) {
    return `${name} archive failed: ${outcome.archiveError}; ${name} reset skipped`;
  }
  return outcome.archived ? `Archived ${name}: ${outcome.archived}` : "ok";
}
