/**
 * The tape: entries, queries, stores (memory, JSONL file, SQLite, PostgreSQL), forks, context selection,
 * sidecars and spill.
 *
 * @example Append and read back
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore, Tape } from "@bub/core";
 * import { messageEntry } from "@bub/core/tape";
 * const tape = new Tape({ store: new InMemoryTapeStore() }).scoped("cli-local");
 * await tape.ensureBootstrapAnchor();
 * await tape.append(messageEntry({ role: "user", content: "hi" }));
 * assert.deepEqual(await tape.readMessages(), [{ role: "user", content: "hi" }]);
 * ```
 *
 * @module
 */
// Beside the public files each store's private machinery has a folder: file/ (the JSONL file
// store), sqlite/, postgres/, and store/ for what they share (query evaluation, search, retries,
// live views, SQL rows).
export {
  anchorEntry,
  createEntry,
  errorEntry,
  eventEntry,
  messageEntry,
  systemEntry,
  type TapeEntry,
  type TapeMeta,
  toolCallEntry,
  toolResultEntry,
} from "./entry.ts";
export { sessionTapeName, tapeSessionId } from "./naming.ts";
export { TapeQuery, type TapeQueryFields } from "./query.ts";
export type { TapeQuerySpec } from "./query_fields.ts";
export { latestEvents } from "./latest_events.ts";
export {
  AsyncTapeStoreAdapter,
  isAsyncTapeStore,
  type SyncTapeStore,
  type TapeStore,
  toAsyncTapeStore,
  UnavailableTapeStore,
} from "./store.ts";
export { InMemoryTapeStore } from "./memory_store.ts";
export { FileTapeStore, type FileTapeStoreOptions } from "./file_store.ts";
export { SqliteTapeStore, type SqliteTapeStoreOptions } from "./sqlite_store.ts";
export {
  PostgresTapeStore,
  type PostgresTapeStoreOptions,
  type TapeLease,
} from "./postgres_store.ts";
export {
  type ClaimOptions,
  type EnqueueResult,
  inboxChannel,
  type InboxClaim,
  type InboxMessage,
  PostgresInbox,
} from "./postgres_inbox.ts";
export { PostgresLeader } from "./postgres_leader.ts";
export { ForkTapeStore, type ForkTapeStoreOptions, redactPayload } from "./fork_store.ts";
export {
  type ForkJournal,
  forkJournalOf,
  isDeferrableEntry,
  type PendingFork,
} from "./fork_journal.ts";
export {
  adoptInterruptedTurns,
  describeFork,
  type InterruptedCall,
  type InterruptedOptions,
  type InterruptedTurn,
  listInterruptedTurns,
  TURN_INTERRUPTED,
} from "./interrupted.ts";
export {
  buildQuery,
  type ChatMessage,
  contextVisible,
  defaultTapeContext,
  LAST_ANCHOR,
  selectMessages,
  type TapeChatMessage,
  TapeContext,
  type TapeContextOptions,
  type TapeSelector,
} from "./context.ts";
export { SIDECAR_TAPE_MARKER, sidecarTapeName, type TapeSidecar } from "../kernel/tape_context.ts";
export { type HandoffOptions, Tape, type TapeOptions } from "./tape.ts";
export {
  formatTapeInfo,
  type RecordChatOptions,
  type ResumableTurnInfo,
  type TapeInfo,
} from "./info.ts";
export {
  DEFAULT_SPILL_THRESHOLD,
  SPILL_CHUNK_BYTES,
  SPILL_SIDECAR,
  type SpillContext,
  spillPreview,
  type SpillSettings,
  SpillStore,
  spillText,
  splitUtf8,
} from "./spill.ts";
export { readSpill, type ReadSpillOptions, SPILL_READ_MAX_CHUNKS } from "./spill_read.ts";
export { spillAfterToolCall, type SpillHookArgs } from "./spill_hook.ts";
