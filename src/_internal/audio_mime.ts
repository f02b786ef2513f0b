/**
 * Audio format ↔ MIME type mapping.
 *
 * @module
 */

const FORMAT_TO_MIME: Record<string, string> = {
  aiff: "audio/aiff",
  flac: "audio/flac",
  m4a: "audio/mp4",
  mp3: "audio/mpeg",
  ogg: "audio/ogg",
  wav: "audio/wav",
  webm: "audio/webm",
};

const MIME_TO_FORMAT: Record<string, string> = {
  ...Object.fromEntries(Object.entries(FORMAT_TO_MIME).map(([format, mime]) => [mime, format])),
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

/** The MIME type of an audio format; unknown formats become `audio/<format>`. */
export function audioMimeOf(format: string): string {
  return FORMAT_TO_MIME[format.toLowerCase()] ?? `audio/${format}`;
}
