/**
 * `session/list` for the editor: every session tape of a workspace — from the CLI, Telegram,
 * the web console or an editor — newest activity first, with its title and last activity. A
 * tape's session id is read from its bootstrap anchor's meta (`session_id`); a
 * tape written before Bub kept that event is listed as `tape:<name>` (it loads, read-only).
 * `session/delete` removes a session's tape from the store, after writing its archive.
 *
 * @module
 */
import { sessionTapeName, tapeSessionId } from "../../tape/naming.ts";
import type { TapeStore } from "../../tape/store.ts";
import { Tape } from "../../tape/tape.ts";
import { tapeSummaries } from "../web/tape_view.ts";

/** The prefix of a listed tape whose session id is unknown. */
export const TAPE_SESSION_PREFIX = "tape:";

/**
 * One row of `session/list` (the protocol's `SessionInfo`).
 *
 * @example
 * ```ts
 * import type { AcpSessionInfo } from "@bub/core/channels";
 * const row: AcpSessionInfo = {
 *   sessionId: "telegram:42",
 *   cwd: "/work",
 *   title: "fix the build",
 *   updatedAt: "2026-12-03T10:00:00.000+00:00",
 * };
 * ```
 */
export interface AcpSessionInfo {
  /** The session id to load, resume or prompt. */
  sessionId: string;
  /** The workspace. */
  cwd: string;
  /** The first prompt, on one line. */
  title: string | null;
  /** The date of the tape's newest entry. */
  updatedAt: string | null;
}

/**
 * A page of sessions.
 *
 * @example
 * ```ts
 * import type { AcpSessionPage } from "@bub/core/channels";
 * const page: AcpSessionPage = { sessions: [], nextCursor: null };
 * ```
 */
export interface AcpSessionPage {
  /** The sessions. */
  sessions: AcpSessionInfo[];
  /** The cursor of the next page, or null. */
  nextCursor: string | null;
}

/** The tape of session `sessionId` in `workspace` (`tape:<name>` names a tape directly). */
export function sessionTape(sessionId: string, workspace: string): string {
  return sessionId.startsWith(TAPE_SESSION_PREFIX)
    ? sessionId.slice(TAPE_SESSION_PREFIX.length)
    : sessionTapeName(sessionId, workspace);
}

/**
 * The sessions of `workspace` in `store`, 50 per page after `cursor`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore, Tape } from "@bub/core";
 * import { listAcpSessions } from "@bub/core/channels";
 * import { sessionTapeName } from "@bub/core/tape";
 * const store = new InMemoryTapeStore();
 * const tape = new Tape({ store }).scoped(sessionTapeName("telegram:42", "/work"));
 * await tape.ensureBootstrapAnchor("telegram:42");
 * const page = await listAcpSessions(store, "/work");
 * assert.equal(page.sessions[0]?.sessionId, "telegram:42");
 * ```
 */
export async function listAcpSessions(
  store: TapeStore,
  workspace: string,
  cursor: string | null = null,
): Promise<AcpSessionPage> {
  // A session tape's name starts with its workspace's hash (see `sessionTapeName`).
  const prefix = sessionTapeName("", workspace).split("__")[0] + "__";
  const sessions: AcpSessionInfo[] = [];
  let before = cursor;
  // Pages of the store's tapes until one page of this workspace's sessions is full.
  while (sessions.length < 50) {
    const page = await tapeSummaries(store, { limit: 200, before });
    for (const row of page.tapes) {
      if (!row.name.startsWith(prefix)) continue;
      const id = await tapeSessionId(store, row.name);
      sessions.push({
        sessionId: id ?? `${TAPE_SESSION_PREFIX}${row.name}`,
        cwd: workspace,
        title: row.title,
        updatedAt: row.last_activity,
      });
    }
    before = page.next;
    if (before === null) break;
  }
  return { sessions, nextCursor: before };
}

/**
 * Deletes tape `tape` for `session/delete`: a tape is append-only history, so it is first
 * written to `<archiveDir>/<tape>.jsonl.<stamp>.bak` (the archive `,tape.reset archive=true`
 * writes; none without `archiveDir`), then removed from the store, so the session leaves
 * `session/list` and can no longer be loaded. Returns the archive's path, or null.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore, Tape } from "@bub/core";
 * import { sessionTapeName } from "@bub/core/tape";
 * import { deleteSessionTape } from "./session_list.ts";
 * const store = new InMemoryTapeStore();
 * const name = sessionTapeName("acp:1", "/work");
 * await new Tape({ store }).scoped(name).ensureBootstrapAnchor("acp:1");
 * assert.equal(await deleteSessionTape(store, name, null), null);
 * assert.deepEqual(await store.listTapes(), []);
 * ```
 */
export async function deleteSessionTape(
  store: TapeStore,
  tape: string,
  archiveDir: string | null,
): Promise<string | null> {
  let archived: string | null = null;
  if (archiveDir !== null) {
    // Tape.reset archives, then starts the tape afresh; the store's reset then removes it.
    const result = await new Tape({ store, archivePath: archiveDir }).scoped(tape).reset({
      archive: true,
    });
    archived = result.startsWith("Archived: ") ? result.slice("Archived: ".length) : null;
  }
  await store.reset(tape);
  return archived;
}
