/**
 * Audio format ↔ MIME type mapping, one table for every use: the `format` of an `input_audio`
 * part from a media item's MIME type (as Python Bub maps it: `audio/ogg` → `ogg`), and the MIME
 * type of a part's format (for the AI SDK's file parts and for notes).
 *
 * @module
 */

const FORMAT_TO_MIME: Record<string, string> = {
  aac: "audio/aac",
  aiff: "audio/aiff",
  flac: "audio/flac",
  m4a: "audio/mp4",
  mp3: "audio/mpeg",
  mp4: "audio/mp4",
  mpeg: "audio/mpeg",
  oga: "audio/ogg",
  ogg: "audio/ogg",
  opus: "audio/ogg",
  wav: "audio/wav",
  webm: "audio/webm",
};

const MIME_TO_FORMAT: Record<string, string> = {
  "audio/aac": "aac",
  "audio/aiff": "aiff",
  "audio/flac": "flac",
  "audio/mp4": "m4a",
  "audio/mpeg": "mp3",
  "audio/ogg": "ogg",
  "audio/wav": "wav",
  "audio/webm": "webm",
  "audio/x-aiff": "aiff",
  "audio/x-flac": "flac",
  "audio/x-m4a": "m4a",
  "audio/x-wav": "wav",
};

/** The audio format of a MIME type: known types map; others lose an `audio/` prefix. */
export function audioFormatOf(mime: string): string {
  const clean = (mime.split(";")[0] ?? "").trim().toLowerCase();
  const known = MIME_TO_FORMAT[clean];
  if (known) return known;
  const stripped = clean.startsWith("audio/") ? clean.slice(6) : clean;
  return stripped || "unknown";
}

/**
 * The MIME type of an audio format (`wav`, `mp3`, `ogg`, …, case-insensitive); unknown formats
 * become `audio/<format>`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { audioMimeOf } from "./audio_mime.ts";
 * assert.equal(audioMimeOf("opus"), "audio/ogg");
 * ```
 */
export function audioMimeOf(format: string): string {
  const lower = format.toLowerCase();
  return FORMAT_TO_MIME[lower] ?? `audio/${lower}`;
}
