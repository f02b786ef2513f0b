/**
 * The approval settings (YAML root, `BUB_APPROVALS` / `BUB_APPROVERS` /
 * `BUB_APPROVAL_TIMEOUT_SECONDS`): rules that make a tool call wait for a person's approval
 * (`{tool: <name or glob>, match: <regex over the call's JSON arguments>, reason}`), who may
 * decide besides the session's owner, and when a request expires. {@link approvalAsk} turns the
 * first matching rule into an `ask` decision.
 *
 * @module
 */
import { isRecord } from "../_internal/object.ts";
import { type ParseResult, s as z, type Schema } from "../_internal/schema.ts";
import { DEFAULT_APPROVAL_TIMEOUT_SECONDS } from "../agent/approvals.ts";
import type { AskDecision } from "../kernel/decisions.ts";
import { BubError } from "../kernel/errors.ts";
import { loadSection, type SectionSpec } from "./_settings_fields.ts";
import type { SettingsSources } from "./settings_types.ts";

/**
 * One rule as configured.
 *
 * @example
 * ```ts
 * import type { ApprovalRule } from "@bub/core/builtin";
 * const rule: ApprovalRule = { tool: "bash", match: "\\brm\\b", reason: "deletes files" };
 * ```
 */
export interface ApprovalRule {
  /** A tool name (`fs.write` or `fs_write`) or a glob (`fs.*`, `*`). */
  tool: string;
  /** A regular expression tested against the call's arguments as JSON; absent: every call. */
  match?: string | null;
  /** What the user is told. Default `approval rule <n>`. */
  reason?: string | null;
}

/**
 * A checked rule, ready to test calls.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compileApprovalRules, type CompiledApprovalRule } from "@bub/core/builtin";
 * const [rule]: CompiledApprovalRule[] = compileApprovalRules([{ tool: "fs.*", match: "secret" }]);
 * assert.ok(rule?.tool.test("fs.write"));
 * ```
 */
export interface CompiledApprovalRule {
  /** The rule as configured. */
  rule: ApprovalRule;
  /** The tool pattern. */
  tool: RegExp;
  /** The argument pattern, or null. */
  match: RegExp | null;
  /** The reason told to the user. */
  reason: string;
}

/**
 * The loaded approval settings.
 *
 * @example
 * ```ts
 * import { type ApprovalSettings, loadApprovalSettings } from "@bub/core/builtin";
 * const settings: ApprovalSettings = loadApprovalSettings({ env: { BUB_APPROVERS: "7" } });
 * ```
 */
export interface ApprovalSettings {
  /** The rules, in order (the first that matches asks). */
  rules: CompiledApprovalRule[];
  /** User ids that may decide besides the session's owner. */
  approvers: string[];
  /** Seconds until a request expires. */
  timeoutSeconds: number;
}

function globPattern(glob: string): RegExp {
  const body = [...glob].map((char) =>
    char === "*" ? ".*" : char === "?" ? "." : char.replace(/[.+^${}()|[\]\\/-]/g, "\\$&")
  ).join("");
  return new RegExp(`^${body}$`);
}

/**
 * Checks and compiles the `approvals` rules.
 *
 * @throws BubError (`config`) naming the first bad rule: not a mapping, a missing or empty
 *   `tool`, or a `match` that is not a regular expression
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compileApprovalRules } from "@bub/core/builtin";
 * const [rule] = compileApprovalRules([{ tool: "fs.*", match: "secret" }]);
 * assert.ok(rule!.tool.test("fs.write") && rule!.match!.test('{"path":"secret.txt"}'));
 * assert.throws(() => compileApprovalRules([{ tool: "bash", match: "(" }]), /approvals rule 1/);
 * ```
 */
export function compileApprovalRules(value: unknown): CompiledApprovalRule[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new BubError("config", `approvals: must be a list of rules, got ${typeof value}`);
  }
  return value.map((rule, i) => {
    const name = `approvals rule ${i + 1}`;
    const bad = (what: string) =>
      new BubError("config", `${name} (${JSON.stringify(rule)}): ${what}`);
    if (!isRecord(rule)) throw bad("must be a mapping {tool, match?, reason?}");
    if (typeof rule.tool !== "string" || rule.tool.trim() === "") {
      throw bad("`tool` is missing (a tool name or glob such as fs.*)");
    }
    for (const key of ["match", "reason"]) {
      const item = rule[key];
      if (item !== undefined && item !== null && typeof item !== "string") {
        throw bad(`\`${key}\` must be a string`);
      }
    }
    let match: RegExp | null = null;
    if (typeof rule.match === "string" && rule.match !== "") {
      try {
        match = new RegExp(rule.match);
      } catch (error) {
        throw bad(`\`match\` is not a regular expression: ${(error as Error).message}`);
      }
    }
    const reason = typeof rule.reason === "string" && rule.reason ? rule.reason : name;
    return {
      rule: rule as unknown as ApprovalRule,
      tool: globPattern(rule.tool.trim()),
      match,
      reason,
    };
  });
}

/** A schema whose values must also pass `check` (a message, or null when good). */
function checked(check: (value: unknown) => string | null): Schema<unknown> {
  const base = z.unknown();
  const schema = Object.create(base) as Schema<unknown>;
  schema.safeParse = (value: unknown): ParseResult<unknown> => {
    const message = check(value);
    if (message === null) return { success: true, data: value } as ParseResult<unknown>;
    return { success: false, error: { issues: [{ code: "custom", message, path: [] }] } };
  };
  return schema;
}

function approverList(value: unknown): string[] | null {
  if (value === null || value === undefined) return [];
  if (typeof value === "string") return value.split(",").map((id) => id.trim()).filter(Boolean);
  if (Array.isArray(value)) return value.map((id) => String(id).trim()).filter(Boolean);
  if (typeof value === "number") return [String(value)];
  return null;
}

/** Spec of the approval settings (YAML root, `BUB_APPROVAL*`). */
export const APPROVALS: SectionSpec = {
  section: "",
  prefix: "BUB_",
  fields: [
    {
      key: "approvals",
      type: "json",
      get schema(): Schema<unknown> {
        return checked((value) => {
          try {
            compileApprovalRules(value);
            return null;
          } catch (error) {
            return (error as Error).message;
          }
        });
      },
      expected: "a list of rules {tool, match?, reason?} (JSON in env)",
      fallback: () => [],
    },
    {
      key: "approvers",
      type: "json",
      get schema(): Schema<unknown> {
        return checked((value) =>
          approverList(value) === null ? "must be a list of user ids, or comma-separated" : null
        );
      },
      expected: "a list of user ids (JSON or comma-separated in env)",
      fallback: () => [],
    },
    {
      key: "approval_timeout_seconds",
      type: "float",
      get schema(): Schema<unknown> {
        return z.number({ error: "must be a number" }).gt(0, { error: "must be greater than 0" });
      },
      expected: "a number greater than 0",
      fallback: () => DEFAULT_APPROVAL_TIMEOUT_SECONDS,
    },
  ],
};

/**
 * Loads the approval settings.
 *
 * @throws BubError (`config`) naming a bad rule, approver list or timeout
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadApprovalSettings } from "@bub/core/builtin";
 * const settings = loadApprovalSettings({ env: { BUB_APPROVALS: '[{"tool":"bash"}]', BUB_APPROVERS: "7,8" } });
 * assert.deepEqual([settings.rules.length, settings.approvers, settings.timeoutSeconds], [1, ["7", "8"], 86400]);
 * ```
 */
export function loadApprovalSettings(sources: SettingsSources = {}): ApprovalSettings {
  const values = loadSection(APPROVALS, {
    env: sources.env ?? {},
    dotenv: sources.dotenv ?? {},
    data: sources.config ?? {},
  });
  return {
    rules: compileApprovalRules(values.approvals),
    approvers: approverList(values.approvers) ?? [],
    timeoutSeconds: values.approval_timeout_seconds as number,
  };
}

/**
 * The `ask` decision of the first rule that matches a call (its tool names: as invoked and the
 * tool's own), or null.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { approvalAsk, compileApprovalRules } from "@bub/core/builtin";
 * const rules = compileApprovalRules([{ tool: "bash", match: "rm ", reason: "deletes files" }]);
 * assert.equal(approvalAsk(rules, ["bash"], { command: "rm -r x" })?.reason, "deletes files");
 * assert.equal(approvalAsk(rules, ["bash"], { command: "ls" }), null);
 * ```
 */
export function approvalAsk(
  rules: readonly CompiledApprovalRule[],
  toolNames: readonly string[],
  args: Record<string, unknown>,
): AskDecision | null {
  let json: string | null = null;
  for (const rule of rules) {
    if (!toolNames.some((name) => rule.tool.test(name))) continue;
    if (rule.match !== null && !rule.match.test(json ??= JSON.stringify(args))) continue;
    return {
      action: "ask",
      reason: rule.reason,
      match: rule.match === null ? null : rule.rule.match ?? null,
    };
  }
  return null;
}
