/**
 * MD5 (RFC 1321) of a UTF-8 string as lowercase hex, for names (tape file names), not security.
 * In plain code so that naming a tape does not need `node:crypto`, whose loading costs more than
 * a cold import of the rest of the root (~15 ms of CPU on Node).
 *
 * @module
 */

/** Per-round left-rotation amounts. */
// deno-fmt-ignore
const SHIFTS = new Uint8Array([
  7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
  5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
  4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
  6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
]);

/** `floor(abs(sin(i + 1)) * 2^32)` for i in 0..63. */
const CONSTANTS = Int32Array.from(
  { length: 64 },
  (_, i) => (Math.abs(Math.sin(i + 1)) * 2 ** 32) | 0,
);

const encoder = new TextEncoder();

/** The message words of texts up to 5 blocks (311 bytes), reused: a digest is synchronous. */
const WORDS = new Uint32Array(80);

/** True when every character of `text` is ASCII (its UTF-8 bytes are its char codes). */
function _ascii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 127) return false;
  return true;
}

/** The two hex digits of each byte value. */
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** A word's four bytes, least significant first, as hex. */
function _hexWord(word: number): string {
  return HEX[word & 0xff]! + HEX[(word >>> 8) & 0xff]! + HEX[(word >>> 16) & 0xff]! +
    HEX[(word >>> 24) & 0xff]!;
}

/**
 * The MD5 digest of `text` (UTF-8) as 32 lowercase hex digits, as
 * `createHash("md5").update(text, "utf8").digest("hex")` gives.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { md5Hex } from "./md5.ts";
 * assert.ok(md5Hex("") === "d41d8cd98f00b204e9800998ecf8427e");
 * ```
 */
export function md5Hex(text: string): string {
  // An ASCII text (session ids, most paths) is its own bytes: no encoder call (a runtime call on
  // Deno) and no buffers per digest.
  const bytes = _ascii(text) ? null : encoder.encode(text);
  const length = bytes === null ? text.length : bytes.length;
  const blocks = ((length + 8) >>> 6) + 1;
  const words = blocks * 16 <= WORDS.length
    ? WORDS.fill(0, 0, blocks * 16)
    : new Uint32Array(blocks * 16);
  if (bytes === null) {
    for (let i = 0; i < length; i++) words[i >>> 2]! |= text.charCodeAt(i) << ((i % 4) * 8);
  } else {
    for (let i = 0; i < length; i++) words[i >>> 2]! |= bytes[i]! << ((i % 4) * 8);
  }
  words[length >>> 2]! |= 0x80 << ((length % 4) * 8);
  const bits = length * 8;
  words[blocks * 16 - 2] = bits >>> 0;
  words[blocks * 16 - 1] = Math.floor(bits / 2 ** 32) >>> 0;
  let a0 = 0x67452301, b0 = 0xefcdab89, c0 = 0x98badcfe, d0 = 0x10325476;
  for (let block = 0; block < blocks * 16; block += 16) {
    let a = a0, b = b0, c = c0, d = d0;
    for (let i = 0; i < 64; i++) {
      let f: number, g: number;
      if (i < 16) {
        f = (b & c) | (~b & d);
        g = i;
      } else if (i < 32) {
        f = (d & b) | (~d & c);
        g = (5 * i + 1) % 16;
      } else if (i < 48) {
        f = b ^ c ^ d;
        g = (3 * i + 5) % 16;
      } else {
        f = c ^ (b | ~d);
        g = (7 * i) % 16;
      }
      const sum = (a + f + CONSTANTS[i]! + words[block + g]!) | 0;
      const shift = SHIFTS[i]!;
      a = d;
      d = c;
      c = b;
      b = (b + ((sum << shift) | (sum >>> (32 - shift)))) | 0;
    }
    a0 = (a0 + a) | 0;
    b0 = (b0 + b) | 0;
    c0 = (c0 + c) | 0;
    d0 = (d0 + d) | 0;
  }
  return _hexWord(a0) + _hexWord(b0) + _hexWord(c0) + _hexWord(d0);
}
