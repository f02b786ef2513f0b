/**
 * Text helpers that count like Python: lengths in code points, `{n:,}` thousands separators.
 *
 * @module
 */

/** The number of code points of `text` (Python's `len`). */
export function codePointLength(text: string): number {
  let surrogates = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        surrogates++;
        i++;
      }
    }
  }
  return text.length - surrogates;
}

/** The first `n` code points. */
export function headCodePoints(text: string, n: number): string {
  let out = "";
  let count = 0;
  for (const ch of text) {
    if (count++ >= n) break;
    out += ch;
  }
  return out;
}

/** The last `n` code points. */
export function tailCodePoints(text: string, n: number): string {
  let i = text.length;
  let count = 0;
  while (i > 0 && count < n) {
    const c = text.charCodeAt(i - 1);
    const prev = text.charCodeAt(i - 2);
    i -= c >= 0xdc00 && c <= 0xdfff && prev >= 0xd800 && prev <= 0xdbff ? 2 : 1;
    count++;
  }
  return text.slice(i);
}

/** An integer with comma thousands separators (`20,005`). */
export function withCommas(n: number): string {
  const sign = n < 0 ? "-" : "";
  return sign + String(Math.abs(Math.trunc(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
