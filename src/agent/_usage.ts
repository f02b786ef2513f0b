/**
 * `LanguageModelV4Usage` → the OpenAI chat usage shape, nulls dropped.
 *
 * @module
 */
import type { LanguageModelV4Usage } from "@ai-sdk/provider";
import type { ChatUsage } from "./model_client.ts";

/** Deep copy of `value` without `null`/`undefined` object fields. */
export function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (item === null || item === undefined) continue;
      out[key] = dropNulls(item);
    }
    return out;
  }
  return value;
}

/**
 * Normalizes a provider usage report. A raw OpenAI chat usage object (with `prompt_tokens`) is
 * kept as sent; any other provider is mapped to `{prompt_tokens, completion_tokens, total_tokens,
 * prompt_tokens_details?: {cached_tokens}}`. Returns null when nothing was reported.
 */
export function normalizeUsage(usage: LanguageModelV4Usage | undefined): ChatUsage | null {
  if (!usage) return null;
  const raw = usage.raw as Record<string, unknown> | undefined;
  if (raw && typeof raw.prompt_tokens === "number") return dropNulls(raw) as ChatUsage;
  const prompt = usage.inputTokens.total;
  const completion = usage.outputTokens.total;
  if (prompt === undefined && completion === undefined) return null;
  const out: ChatUsage = {};
  if (prompt !== undefined) out.prompt_tokens = prompt;
  if (completion !== undefined) out.completion_tokens = completion;
  out.total_tokens = (prompt ?? 0) + (completion ?? 0);
  if (usage.inputTokens.cacheRead !== undefined) {
    out.prompt_tokens_details = { cached_tokens: usage.inputTokens.cacheRead };
  }
  if (usage.outputTokens.reasoning !== undefined) {
    out.completion_tokens_details = { reasoning_tokens: usage.outputTokens.reasoning };
  }
  return out;
}
