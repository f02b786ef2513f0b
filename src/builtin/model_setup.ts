/**
 * Telling the user what to set when no model can be reached.
 *
 * @module
 */
import { PROVIDER_PRESETS } from "../agent/providers.ts";
import type { BuiltinRuntime } from "./runtime.ts";

/**
 * A message saying exactly what to configure when the model cannot work as configured (no API
 * key and no API base for a provider that needs one), or null when it looks usable.
 */
export function modelSetupProblem(runtime: BuiltinRuntime): string | null {
  const settings = runtime.settings;
  const env = runtime.sources.env ?? {};
  const provider = settings.model.split(/[:/]/, 1)[0]?.toLowerCase() ?? "";
  const lookup = (value: unknown): unknown =>
    typeof value === "object" && value !== null
      ? (value as Record<string, unknown>)[provider]
      : value;
  const key = lookup(settings.api_key);
  const base = lookup(settings.api_base);
  const preset = PROVIDER_PRESETS[provider];
  const keyless = preset !== undefined && preset.baseURL !== null &&
    /^http:\/\/localhost/.test(preset.baseURL);
  const envKey = provider === "openai"
    ? env.OPENAI_API_KEY
    : provider === "anthropic"
    ? env.ANTHROPIC_API_KEY
    : undefined;
  if (key || base || keyless || envKey) return null;
  return [
    settings.model
      ? `No model is configured: ${settings.model} needs an API key (or an API base).`
      : "No model is configured: BUB_MODEL is empty.",
    "Set one of these (environment, .env, or ~/.bub/config.yml), then start again:",
    "  BUB_MODEL=openai:gpt-4o BUB_API_KEY=sk-...                         a hosted provider",
    "  BUB_MODEL=custom:<model> BUB_API_BASE=http://127.0.0.1:8000/v1      any OpenAI-compatible server",
    "Or try Bub offline against its mock model: deno run -A examples/chat.ts --demo",
    "(`bub onboard` asks these questions and writes the config file.)",
  ].join("\n");
}
