/**
 * Comma-separated allowlists (`BUB_TELEGRAM_ALLOW_USERS`, `BUB_TOOL_ENV_PASSTHROUGH`): a module of
 * its own so that the builtin plugin reads them without loading the Telegram channel.
 *
 * @module
 */

/**
 * Splits a comma-separated allowlist (as in `BUB_TELEGRAM_ALLOW_USERS`) into trimmed, non-empty
 * entries; null or blank text gives null (no restriction).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseAllowList } from "./allow_list.ts";
 * assert.ok(parseAllowList(" 42, ada ,")?.join("|") === "42|ada");
 * assert.ok(parseAllowList("") === null);
 * ```
 */
export function parseAllowList(text: string | null | undefined): string[] | null {
  const items = (text ?? "").split(",").map((item) => item.trim()).filter(Boolean);
  return items.length ? items : null;
}
