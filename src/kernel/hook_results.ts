/**
 * The one table of hook result validators: what a non-null answer of a hook must be, and the
 * `TypeError` a wrong answer raises (`hook.<snake_name> must return <expected>, got <what>`).
 *
 * @module
 */
import { type AdmitDecision, isAdmitDecision } from "./channel.ts";
import { Environment } from "./environment.ts";
import type { HookName, HookValue } from "./hook_specs.ts";
import { isModelOptions } from "./model_options.ts";
import { AsyncStreamEvents } from "./stream.ts";
import { TapeContext } from "./tape_context.ts";

/** What one hook's answer must be. */
export interface ResultCheck {
  /** The expected type, as the error message names it. */
  readonly expected: string;
  /** True for an acceptable non-null answer. */
  readonly accepts: (value: unknown) => boolean;
  /** Null is a wrong answer too (the hook must answer). Default false. */
  readonly required?: boolean;
  /** The message stops after the expected type (no `, got ...`), as it always has. */
  readonly terse?: boolean;
}

const isString = (value: unknown): boolean => typeof value === "string";
const isDict = (value: unknown): boolean =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Hook name → the check of its answers; hooks without an entry accept anything. */
export const HOOK_RESULT_CHECKS: { readonly [K in HookName]?: ResultCheck } = {
  runModel: { expected: "str or None", accepts: isString },
  runModelStream: {
    expected: "AsyncStreamEvents or None",
    accepts: (value) => value instanceof AsyncStreamEvents,
  },
  continuePrompt: { expected: "str or None", accepts: isString },
  admitMessage: {
    expected: "AdmitDecision or None",
    accepts: (value) => isAdmitDecision(value as AdmitDecision),
  },
  provideModelOptions: { expected: "ModelOptions or None", accepts: isModelOptions },
  provideEnvironment: {
    expected: "Environment or None",
    accepts: (value) => value instanceof Environment,
    terse: true,
  },
  provideTapeSidecar: {
    expected: "a sidecar with a string name",
    accepts: (value) => typeof (value as { name?: unknown }).name === "string",
  },
  buildTapeContext: {
    expected: "TapeContext",
    accepts: (value) => value instanceof TapeContext,
    required: true,
  },
  provideChannels: { expected: "a list of channels", accepts: Array.isArray },
  onboardConfig: { expected: "dict or None", accepts: isDict },
};

/** `resolveSession` → `resolve_session`. */
function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** A short description of a value's type for error messages. */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return `an object of type ${value.constructor?.name ?? "Object"}`;
  return `a ${typeof value} (${String(value).slice(0, 40)})`;
}

/**
 * `value` as hook `hook`'s answer (null for null and undefined), checked against
 * {@link HOOK_RESULT_CHECKS}.
 *
 * @throws {TypeError} `hook.<name> must return <expected>, got <what>` (naming the plugin when
 *   `pluginName` is given) for a wrong answer
 */
export function checkHookResult<K extends HookName>(
  hook: K,
  value: unknown,
  pluginName?: string,
): HookValue<K> | null {
  const check = HOOK_RESULT_CHECKS[hook];
  const missing = value === null || value === undefined;
  if (check === undefined || (missing && !check.required)) {
    return missing ? null : value as HookValue<K>;
  }
  if (!missing && check.accepts(value)) return value as HookValue<K>;
  const got = check.terse ? "" : `, got ${describe(missing ? null : value)}`;
  const from = pluginName === undefined ? "" : ` from plugin "${pluginName}"`;
  throw new TypeError(`hook.${snakeCase(hook)} must return ${check.expected}${got}${from}`);
}
