/**
 * The size bound of media a channel downloads for the model (Telegram, Slack, Discord, GitHub,
 * Linear) or uploads for an answer.
 *
 * @module
 */

/**
 * Largest file a channel downloads for a media item (2 MiB); a larger one becomes a note.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MAX_MEDIA_BYTES } from "@bub/core/channels";
 * assert.equal(MAX_MEDIA_BYTES, 2 * 1024 * 1024); // larger attachments are not downloaded
 * ```
 */
export const MAX_MEDIA_BYTES: number = 2 * 1024 * 1024;
