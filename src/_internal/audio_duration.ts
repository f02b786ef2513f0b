/**
 * The playing time of base64 audio read from its container headers, without decoding the whole
 * file: Ogg (Opus, as Telegram and WhatsApp voice notes are, and Vorbis) from the last page's
 * granule position, WAV from its data chunk size and byte rate. Other formats: unknown (null).
 *
 * @module
 */

/** Decodes `base64` (padded or not) into bytes; invalid text gives an empty array. */
function bytesOf(base64: string): Uint8Array {
  try {
    const binary = atob(base64);
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  } catch {
    return new Uint8Array(0);
  }
}

/** The first `count` bytes of base64 `data` (at most). */
function head(data: string, count: number): Uint8Array {
  return bytesOf(data.slice(0, Math.ceil(count / 3) * 4));
}

/** The last bytes of base64 `data`: at least `count` of them when the data is that long. */
function tail(data: string, count: number): Uint8Array {
  const clean = data.replace(/=+$/, "");
  const chars = Math.ceil(count / 3) * 4 + 4;
  // Start on a 4-character boundary of the whole text so the slice decodes to whole bytes.
  const start = Math.max(0, clean.length - chars);
  const aligned = start - (start % 4);
  const piece = clean.slice(aligned);
  return bytesOf(piece + "=".repeat((4 - (piece.length % 4)) % 4));
}

function ascii(bytes: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + length));
}

function indexOf(bytes: Uint8Array, text: string, from = 0): number {
  outer: for (let i = from; i <= bytes.length - text.length; i++) {
    for (let j = 0; j < text.length; j++) {
      if (bytes[i + j] !== text.charCodeAt(j)) continue outer;
    }
    return i;
  }
  return -1;
}

function oggSeconds(data: string): number | null {
  const first = head(data, 512);
  const view = new DataView(first.buffer, first.byteOffset, first.byteLength);
  let rate = 0;
  let preSkip = 0;
  const opus = indexOf(first, "OpusHead");
  const vorbis = indexOf(first, "\x01vorbis");
  if (opus >= 0 && opus + 12 <= first.length) {
    rate = 48_000; // Opus granule positions always count 48 kHz samples.
    preSkip = view.getUint16(opus + 10, true);
  } else if (vorbis >= 0 && vorbis + 16 <= first.length) {
    rate = view.getUint32(vorbis + 12, true);
  }
  if (rate <= 0) return null;
  // An Ogg page is at most 65 307 bytes: the last one starts within the last 66 000.
  const last = tail(data, 66_000);
  let at = -1;
  for (let i = indexOf(last, "OggS"); i >= 0; i = indexOf(last, "OggS", i + 1)) at = i;
  if (at < 0 || at + 14 > last.length) return null;
  const page = new DataView(last.buffer, last.byteOffset + at, 14);
  const granule = Number(page.getBigUint64(6, true));
  if (!Number.isFinite(granule) || granule <= preSkip) return null;
  return (granule - preSkip) / rate;
}

function wavSeconds(data: string): number | null {
  const bytes = head(data, 4096);
  if (bytes.length < 12 || ascii(bytes, 0, 4) !== "RIFF" || ascii(bytes, 8, 4) !== "WAVE") {
    return null;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let byteRate = 0;
  for (let at = 12; at + 8 <= bytes.length;) {
    const id = ascii(bytes, at, 4);
    const size = view.getUint32(at + 4, true);
    if (id === "fmt " && at + 20 <= bytes.length) byteRate = view.getUint32(at + 16, true);
    if (id === "data") return byteRate > 0 ? size / byteRate : null;
    at += 8 + size + (size % 2);
  }
  return null;
}

/**
 * Seconds of playing time of base64 audio in `format` (`ogg`, `opus`, `oga`, `wav`), or null when
 * the format or its headers do not say.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { audioSeconds } from "./audio_duration.ts";
 * assert.equal(audioSeconds("bm90IGF1ZGlv", "mp3"), null);
 * ```
 */
export function audioSeconds(data: string, format: string): number | null {
  switch (format.toLowerCase()) {
    case "ogg":
    case "oga":
    case "opus":
      return oggSeconds(data);
    case "wav":
    case "wave":
      return wavSeconds(data);
    default:
      return null;
  }
}
