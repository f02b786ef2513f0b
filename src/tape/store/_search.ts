/**
 * The search pass of the persistent stores (§5.6): newest first, deduplicated by payload text,
 * substring or fuzzy (`WRatio` >= 80) match, at most `limit` (default 20) results.
 *
 * @module
 */
import { stringify } from "../../_vendor/yaml.js";
import { lazyImport } from "../../_internal/lazy.ts";
import type { TapeEntry } from "../entry.ts";
import type { QuerySpec } from "./_evaluate.ts";

const TOKEN = /[a-z0-9_/-]+/g;
const MAX_CANDIDATES = 128;
const DEFAULT_LIMIT = 20;

// Imported by the first search: importing the stores does not need it. (yaml is imported
// statically: the configuration needs it at import anyway, and a namespace import would keep
// all of it in the npm bundle.)
const fuzzball = lazyImport(() => import("fuzzball"));

type Stringify = typeof stringify;

type Scorer = typeof import("fuzzball").WRatio;

function _payloadText(stringify: Stringify, entry: TapeEntry): string {
  try {
    return stringify(entry.payload).toLowerCase();
  } catch {
    return JSON.stringify(entry.payload).toLowerCase();
  }
}

function _tokens(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

/**
 * True when a candidate of `text` scores >= 80 against `query` (queries of >= 3 chars) by
 * `wRatio` (fuzzball's `WRatio`).
 */
export function fuzzyMatches(wRatio: Scorer, query: string, text: string): boolean {
  if (query.length < 3) return false;
  const queryTokens = _tokens(query);
  if (queryTokens.length === 0) return false;
  const tokens = _tokens(text);
  const candidates = tokens.slice(0, MAX_CANDIDATES);
  if (queryTokens.length > 1) {
    for (let i = 0; i + queryTokens.length <= tokens.length; i++) {
      if (candidates.length >= MAX_CANDIDATES) break;
      candidates.push(tokens.slice(i, i + queryTokens.length).join(" "));
    }
  }
  const needle = queryTokens.join(" ");
  return candidates.some((candidate) => wRatio(needle, candidate, { full_process: false }) >= 80);
}

/**
 * The second search pass over the generically filtered `entries` (oldest first in, newest
 * first out).
 */
export async function searchPass(
  entries: readonly TapeEntry[],
  query: QuerySpec,
): Promise<TapeEntry[]> {
  const needle = query.text.trim().toLowerCase();
  if (!needle) return [];
  const { WRatio } = await fuzzball();
  const limit = query.limitCount ?? DEFAULT_LIMIT;
  const seen = new Set<string>();
  const out: TapeEntry[] = [];
  for (let i = entries.length - 1; i >= 0 && out.length < limit; i--) {
    const entry = entries[i]!;
    const text = _payloadText(stringify, entry);
    if (seen.has(text)) continue;
    seen.add(text);
    if (text.includes(needle) || fuzzyMatches(WRatio, needle, text)) out.push(entry);
  }
  return out;
}
