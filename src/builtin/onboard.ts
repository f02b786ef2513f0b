/**
 * The builtin onboarding fragment (`bub onboard`): provider, model, key, base, channels and
 * streaming, asked through a synchronous {@link Prompter}.
 *
 * @module
 */
import { readSync, writeSync } from "node:fs";
import process from "node:process";
import { isatty, type ReadStream } from "node:tty";
import { PROVIDER_PRESETS, providerPreset } from "../agent/providers/provider_presets.ts";
import { ONBOARD_FIELDS } from "./_provider_settings_specs.ts";

/**
 * Thrown when the user interrupts a prompt (end of input).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PromptAborted } from "@bub/core/builtin";
 * assert.ok(new PromptAborted() instanceof Error); // thrown when the user ends input mid-question
 * ```
 */
export class PromptAborted extends Error {
  /** Creates the error (its message is `Aborted!`). */
  constructor() {
    super("Aborted!");
    this.name = "PromptAborted";
  }
}

/**
 * Synchronous prompts (the `onboardConfig` hook is sync-only).
 *
 * @example
 * ```ts
 * import { BubFramework } from "@bub/core";
 * import type { Prompter } from "@bub/core/builtin";
 * const scripted: Prompter = {
 *   select: (_question, _choices, fallback) => fallback,
 *   text: (_question, fallback = "") => fallback,
 *   secret: () => "sk-test",
 *   checkbox: (_question, _choices, fallback) => [...fallback],
 *   confirm: (_question, fallback) => fallback,
 * };
 * const bub = new BubFramework();
 * bub.prompter = scripted; // `bub onboard` asks it instead of the terminal
 * ```
 */
export interface Prompter {
  /** One choice of `choices`; `fallback` on an empty answer. */
  select(question: string, choices: readonly string[], fallback: string): string;
  /** Free text; `fallback` on an empty answer. */
  text(question: string, fallback?: string): string;
  /** Free text that is not echoed back in logs. */
  secret(question: string): string;
  /** Several of `choices` (comma-separated names or numbers); `fallback` on an empty answer. */
  checkbox(question: string, choices: readonly string[], fallback: readonly string[]): string[];
  /** Yes or no; `fallback` on an empty answer. */
  confirm(question: string, fallback: boolean): boolean;
}

/** A 10 ms pause for a non-blocking input with nothing to read yet. */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/**
 * A {@link Prompter} over file descriptors (stdin/stdout by default), reading line by line; a
 * secret typed on a terminal is not echoed.
 *
 * @example
 * ```ts
 * import { BubFramework } from "@bub/core";
 * import { LinePrompter } from "@bub/core/builtin";
 * const bub = new BubFramework();
 * bub.prompter = new LinePrompter(0, 2); // read stdin, ask on stderr
 * ```
 */
export class LinePrompter implements Prompter {
  #input: number;
  #output: number;
  #buffer = "";

  /**
   * Creates the object.
   *
   * @param input the file descriptor to read
   * @param output the one to write
   */
  constructor(input: number = 0, output: number = 1) {
    this.#input = input;
    this.#output = output;
  }

  /** Reads into `chunk`, waiting while a non-blocking input has nothing (EAGAIN). */
  #read(chunk: Uint8Array): number {
    while (true) {
      try {
        return readSync(this.#input, chunk);
      } catch (error) {
        if ((error as { code?: string }).code !== "EAGAIN") throw error;
        Atomics.wait(PAUSE, 0, 0, 10);
      }
    }
  }

  #ask(question: string): string {
    writeSync(this.#output, question);
    while (!this.#buffer.includes("\n")) {
      const chunk = new Uint8Array(4096);
      const read = this.#read(chunk);
      if (read === 0) {
        if (this.#buffer === "") throw new PromptAborted();
        this.#buffer += "\n";
        break;
      }
      this.#buffer += new TextDecoder().decode(chunk.subarray(0, read));
    }
    const index = this.#buffer.indexOf("\n");
    const line = this.#buffer.slice(0, index).replace(/\r$/, "");
    this.#buffer = this.#buffer.slice(index + 1);
    return line.trim();
  }

  select(question: string, choices: readonly string[], fallback: string): string {
    const listed = choices.map((choice, i) => `  ${i + 1}. ${choice}`).join("\n");
    while (true) {
      const answer = this.#ask(`${question}\n${listed}\n[${fallback}] > `);
      if (answer === "") return fallback;
      const index = Number(answer);
      if (Number.isInteger(index) && index >= 1 && index <= choices.length) {
        return choices[index - 1]!;
      }
      const match = choices.find((choice) => choice.toLowerCase() === answer.toLowerCase()) ??
        choices.find((choice) => choice.toLowerCase().startsWith(answer.toLowerCase()));
      if (match) return match;
      writeSync(this.#output, `Please choose one of: ${choices.join(", ")}\n`);
    }
  }

  text(question: string, fallback: string = ""): string {
    const answer = this.#ask(fallback ? `${question} [${fallback}] > ` : `${question} > `);
    return answer === "" ? fallback : answer;
  }

  secret(question: string): string {
    const stdin = this.#input === 0 && isatty(0) ? process.stdin as ReadStream : null;
    if (stdin === null || typeof stdin.setRawMode !== "function" || this.#buffer !== "") {
      return this.#ask(`${question} > `);
    }
    // A terminal: read in raw mode, so the key is not echoed (one `*` per character instead);
    // raw before the question shows, so nothing typed after it is echoed.
    stdin.setRawMode(true);
    try {
      writeSync(this.#output, `${question} > `);
      return this.#readHidden();
    } finally {
      stdin.setRawMode(false);
      writeSync(this.#output, "\n");
    }
  }

  /** A line typed in raw mode: Enter ends it, Backspace erases, Ctrl-C or Ctrl-D aborts. */
  #readHidden(): string {
    let line = "";
    const chunk = new Uint8Array(1024);
    const decoder = new TextDecoder();
    while (true) {
      const read = this.#read(chunk);
      if (read === 0) throw new PromptAborted();
      const chars = [...decoder.decode(chunk.subarray(0, read), { stream: true })];
      for (const [i, char] of chars.entries()) {
        if (char === "\r" || char === "\n") {
          // What was typed ahead belongs to the next questions.
          this.#buffer = chars.slice(i + 1).join("").replace(/^\n/, "").replace(/\r/g, "\n");
          return line.trim();
        }
        if (char === "\x03" || (char === "\x04" && line === "")) throw new PromptAborted();
        if (char === "\x7f" || char === "\b") {
          if (line !== "") writeSync(this.#output, "\b \b");
          line = line.slice(0, -1);
        } else if (char >= " ") {
          line += char;
          writeSync(this.#output, "*");
        }
      }
    }
  }

  checkbox(question: string, choices: readonly string[], fallback: readonly string[]): string[] {
    if (choices.length === 0) return [];
    const answer = this.#ask(
      `${question} (comma-separated; "none" for none)\n  ${choices.join(", ")}\n[${
        fallback.join(",")
      }] > `,
    );
    if (answer === "") return [...fallback];
    if (answer.toLowerCase() === "none") return [];
    return answer.split(",").map((item) => item.trim()).filter((item) => choices.includes(item));
  }

  confirm(question: string, fallback: boolean): boolean {
    const answer = this.#ask(`${question} [${fallback ? "Y/n" : "y/N"}] > `).toLowerCase();
    if (answer === "") return fallback;
    return answer === "y" || answer === "yes" || answer === "true";
  }
}

/**
 * The providers offered by onboarding: exactly those the model runner supports
 * ({@link PROVIDER_PRESETS}, the list `providerPreset` validates against).
 */
export const ONBOARD_PROVIDERS: readonly string[] = Object.freeze(Object.keys(PROVIDER_PRESETS));

/** Models proposed for a provider chosen afresh (the others have no model that fits everyone). */
const SUGGESTED_MODELS: Readonly<Record<string, string>> = {
  openrouter: "openrouter/free",
  gemini: "gemini-2.5-flash",
  google: "gemini-2.5-flash",
  vertex: "gemini-2.5-flash",
};

/**
 * The builtin `onboardConfig` fragment: `{ model, enabled_channels, stream_output }` plus
 * `api_key` / `api_base` when given, and a cloud provider's own settings (`vertex_project`,
 * `azure_resource_name`, `bedrock_region`...) when answered.
 */
export function builtinOnboardConfig(
  currentConfig: Record<string, unknown>,
  prompter: Prompter,
  channelNames: readonly string[],
): Record<string, unknown> {
  const currentModel = typeof currentConfig.model === "string" ? currentConfig.model : "";
  const colon = currentModel.indexOf(":");
  const hasParts = colon > 0 && colon < currentModel.length - 1;
  const supported = hasParts && ONBOARD_PROVIDERS.includes(currentModel.slice(0, colon));
  const currentProvider = supported ? currentModel.slice(0, colon) : "openrouter";
  const provider = prompter.select("LLM provider", ONBOARD_PROVIDERS, currentProvider);
  providerPreset(provider); // the model runner's own check
  // The current model only for its own provider; else the provider's suggestion, if it has one.
  const suggested = supported && provider === currentProvider
    ? currentModel.slice(colon + 1)
    : SUGGESTED_MODELS[provider] ?? "";
  let model = "";
  while (model === "") {
    model = prompter.text(suggested ? "LLM model" : "LLM model (required)", suggested);
  }
  const apiKey = prompter.secret("API key (optional)");
  const currentBase = typeof currentConfig.api_base === "string" ? currentConfig.api_base : "";
  let apiBase = "";
  if (provider === "custom") {
    // `custom` is any OpenAI-compatible server: it has no default base.
    while (apiBase === "") apiBase = prompter.text("API base (required for custom)", currentBase);
  } else apiBase = prompter.text("API base (optional)", currentBase);
  // What a cloud provider needs beyond a key and a base (project, region, resource...).
  const cloud: Record<string, string> = {};
  for (const item of ONBOARD_FIELDS[provider] ?? []) {
    const current = typeof currentConfig[item.key] === "string"
      ? currentConfig[item.key] as string
      : "";
    const answer = item.secret
      ? prompter.secret(item.question)
      : prompter.text(item.question, current);
    if (answer) cloud[item.key] = answer;
  }
  // `cli` and `web` are interfaces, started when named (`bub chat`, `bub web`, or listed by hand).
  const available = channelNames.filter((name) => name !== "cli" && name !== "web");
  const enabled = typeof currentConfig.enabled_channels === "string"
    ? currentConfig.enabled_channels.trim()
    : "";
  const preselected = enabled && enabled !== "all"
    ? enabled.split(",").map((name) => name.trim()).filter((name) => available.includes(name))
    : available;
  const channels = prompter.checkbox("Channels", available, preselected);
  const streamOutput = prompter.confirm("Stream output", currentConfig.stream_output === true);
  const fragment: Record<string, unknown> = {
    model: `${provider}:${model}`,
    enabled_channels: channels.join(","),
    stream_output: streamOutput,
  };
  if (apiKey) fragment.api_key = apiKey;
  if (apiBase) fragment.api_base = apiBase;
  Object.assign(fragment, cloud);
  return fragment;
}
