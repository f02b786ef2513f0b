/** Python difflib's `SequenceMatcher(None, a, b).ratio()` for short strings (no junk heuristics). */
export function similarityRatio(a: string, b: string): number {
  const total = a.length + b.length;
  if (total === 0) return 1;
  return (2 * matchingCharacters(a, 0, a.length, b, 0, b.length)) / total;
}

function matchingCharacters(
  a: string,
  alo: number,
  ahi: number,
  b: string,
  blo: number,
  bhi: number,
): number {
  // Longest matching block, earliest in a then in b (as difflib's find_longest_match).
  let bestI = alo, bestJ = blo, bestSize = 0;
  let lengths = new Map<number, number>();
  for (let i = alo; i < ahi; i++) {
    const next = new Map<number, number>();
    for (let j = blo; j < bhi; j++) {
      if (a[i] !== b[j]) continue;
      const size = (lengths.get(j - 1) ?? 0) + 1;
      next.set(j, size);
      if (size > bestSize) {
        bestI = i - size + 1;
        bestJ = j - size + 1;
        bestSize = size;
      }
    }
    lengths = next;
  }
  if (bestSize === 0) return 0;
  return bestSize +
    matchingCharacters(a, alo, bestI, b, blo, bestJ) +
    matchingCharacters(a, bestI + bestSize, ahi, b, bestJ + bestSize, bhi);
}

/** Python difflib's `get_close_matches(word, possibilities, n, cutoff)`: best first. */
export function closeMatches(
  word: string,
  possibilities: Iterable<string>,
  n = 3,
  cutoff = 0.6,
): string[] {
  const scored: [number, string][] = [];
  for (const candidate of possibilities) {
    const score = similarityRatio(candidate, word);
    if (score >= cutoff) scored.push([score, candidate]);
  }
  scored.sort((x, y) => y[0] - x[0] || (y[1] < x[1] ? -1 : y[1] > x[1] ? 1 : 0));
  return scored.slice(0, n).map(([, candidate]) => candidate);
}
