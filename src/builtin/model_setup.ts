/**
 * Telling the user what to set when no model can be reached.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PROVIDER_PRESETS } from "../agent/providers/provider_presets.ts";
import type { KernelFramework } from "../kernel/framework.ts";
import type { BuiltinRuntime } from "./runtime.ts";
import { cloudCredentialsGiven } from "./_provider_settings_specs.ts";

/** Whether the builtin plugin runs the model (no other plugin implements a model hook). */
export function builtinRunsModel(framework: KernelFramework): boolean {
  return ["runModel", "runModelStream"].every((hook) =>
    framework.hookRuntime.implementations(hook).every((impl) => impl.pluginName === "builtin")
  );
}

/**
 * A message saying exactly what to configure when the model cannot work as configured (no API
 * key and no API base for a provider that needs one), or null when it looks usable. It names
 * only what every install has: `bub onboard`, environment variables and `--demo`.
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
    : cloudCredentialsGiven(provider, settings, env)
    ? "given"
    : undefined;
  // `bub login openai`: a ChatGPT login serves `openai-codex:` (and keyless `openai:`) models.
  const loggedIn = (provider === "openai" || provider === "openai-codex") &&
    existsSync(join(runtime.framework.home, "auth", "openai.json"));
  if (provider === "openai-codex" && !loggedIn) {
    return `bub: ${settings.model} needs a ChatGPT login: run 'bub login openai' first.`;
  }
  if (key || base || keyless || envKey || loggedIn) return null;
  return [
    settings.model
      ? `bub: no model is configured: ${settings.model} needs an API key (or an API base).`
      : "bub: no model is configured: BUB_MODEL is empty.",
    "Configure one, then start again:",
    `  bub onboard                          asks a few questions and writes ${runtime.framework.configFile}`,
    "  BUB_MODEL=openai:gpt-4o BUB_API_KEY=sk-...",
    "                                       a hosted provider (environment or ./.env)",
    "  BUB_MODEL=custom:<model> BUB_API_BASE=http://127.0.0.1:8000/v1",
    "                                       any OpenAI-compatible server",
    'Or try Bub with its built-in mock model, no key needed: bub run --demo "hello", bub chat --demo',
  ].join("\n");
}
