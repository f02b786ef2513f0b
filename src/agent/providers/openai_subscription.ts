/**
 * Which `openai:` calls use the ChatGPT subscription: as in Python Bub, an `openai:<model>` call
 * goes to the ChatGPT backend (`openai-codex:<model>`) when the user is logged in
 * (`bub login openai`) and configured neither an OpenAI API key (`api_key`, `OPENAI_API_KEY`) nor
 * an API base for `openai`. A configured key always wins; `openai-codex:<model>` always uses the
 * login.
 *
 * @module
 */
import { existsSync } from "node:fs";
import process from "node:process";
import type { OpenAIAuthLocation } from "./openai_auth.ts";

/** A provider setting: one string or a map by provider key. */
type Setting = string | Readonly<Record<string, string | null | undefined>> | null | undefined;

function has(setting: Setting, provider: string): boolean {
  if (setting == null) return false;
  if (typeof setting === "string") return setting !== "";
  const value = setting[provider];
  return typeof value === "string" && value !== "";
}

/**
 * The model id an `openai:` call goes to: `openai-codex:<model>` when the subscription serves
 * it, else null (the id stays as it is).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { subscriptionModel } from "./openai_subscription.ts";
 * const login = { file: "/nonexistent/auth/openai.json" };
 * assert.equal(subscriptionModel("openai:gpt-5", { openaiAuth: login }), null); // not logged in
 * ```
 */
export function subscriptionModel(
  model: string,
  settings: { apiKey?: Setting; apiBase?: Setting; openaiAuth?: OpenAIAuthLocation | null },
): string | null {
  if (!settings.openaiAuth || !/^openai[:/]/.test(model)) return null;
  if (has(settings.apiKey, "openai") || has(settings.apiBase, "openai")) return null;
  if (process.env.OPENAI_API_KEY) return null;
  if (!existsSync(settings.openaiAuth.file)) return null;
  return `openai-codex:${model.slice("openai:".length)}`;
}
