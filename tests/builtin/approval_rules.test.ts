/**
 * The approval pieces without a model: the `ask` decision by class and by shape, the rules
 * (tool globs, regexes over the JSON arguments, bad rules named in config errors), approval ids,
 * "always" grants, and `beforeToolCall` holding a call the executor would otherwise run.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { grantCovers, newApprovalId } from "../../src/agent/approvals.ts";
import {
  approvalAsk,
  compileApprovalRules,
  loadApprovalSettings,
} from "../../src/builtin/approval_rules.ts";
import { ToolCallDecision, toToolCallDecision } from "../../src/kernel/decisions.ts";
import { BubError } from "../../src/kernel/errors.ts";
import { ToolExecutor } from "../../src/tools/executor.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { agentHooksWith } from "../tools/_fixtures.ts";

describe("the ask decision", () => {
  test("ToolCallDecision.ask and a plain { action: 'ask' } give the same decision", () => {
    const made = ToolCallDecision.ask("needs a yes", "rm ");
    const plain = toToolCallDecision({ action: "ask", reason: "needs a yes", match: "rm " });
    for (const decision of [made, plain]) {
      assert.deepEqual([decision.action, decision.reason, decision.match], [
        "ask",
        "needs a yes",
        "rm ",
      ]);
    }
    assert.throws(
      () => toToolCallDecision({ action: "ask", reason: 3 } as never),
      (error: unknown) =>
        BubError.isInstance(error) && /"reason" must be a string/.test(error.message),
    );
  });

  test("an ask holds the call: the tool does not run, unless approve() lets it", async () => {
    let runs = 0;
    const tool = defineTool({ name: "effect", handler: () => ++runs });
    const hooks = agentHooksWith({
      name: "asker",
      beforeToolCall: () => ToolCallDecision.ask("why"),
    });
    const executor = new ToolExecutor(hooks);
    const held = await executor.execute([{ tool, arguments: { a: 1 }, id: "c1" }]);
    assert.equal(runs, 0);
    assert.deepEqual(held.held, [
      { index: 0, callId: "c1", tool: "effect", arguments: { a: 1 }, reason: "why", match: null },
    ]);
    assert.deepEqual(held.toolResults, [null]);
    const approved = await executor.execute([{ tool, arguments: {}, id: "c2" }], {
      approve: () => true,
    });
    assert.deepEqual([runs, approved.held.length, approved.toolResults], [1, 0, [1]]);
  });
});

describe("approval rules", () => {
  test("a rule matches by tool name or glob and by a regex over the call's JSON arguments", () => {
    const rules = compileApprovalRules([
      { tool: "fs.*", match: '"path":"/etc/', reason: "system files" },
      { tool: "bash" },
    ]);
    assert.deepEqual(approvalAsk(rules, ["fs_write", "fs.write"], { path: "/etc/passwd" }), {
      action: "ask",
      reason: "system files",
      match: '"path":"/etc/',
    });
    assert.equal(approvalAsk(rules, ["fs.write"], { path: "/tmp/x" }), null);
    assert.equal(approvalAsk(rules, ["fsXwrite"], { path: "/etc/x" }), null);
    assert.deepEqual(approvalAsk(rules, ["bash"], { command: "ls" }), {
      action: "ask",
      reason: "approvals rule 2",
      match: null,
    });
  });

  test("a bad rule is a config error that names it", () => {
    const fails = (value: unknown, pattern: RegExp) =>
      assert.throws(() => compileApprovalRules(value), (error: unknown) => {
        assert.ok(BubError.isInstance(error) && error.kind === "config", String(error));
        assert.match(error.message, pattern);
        return true;
      });
    fails([{ tool: "bash" }, { match: "x" }], /approvals rule 2 .*`tool` is missing/);
    fails([{ tool: "bash", match: "([" }], /approvals rule 1 .*not a regular expression/);
    fails(["bash"], /approvals rule 1 .*must be a mapping/);
    fails({ tool: "bash" }, /must be a list of rules/);
    assert.throws(
      () => loadApprovalSettings({ env: { BUB_APPROVALS: '[{"tool":""}]' } }),
      /BUB_APPROVALS|approvals/,
    );
  });

  test("settings: rules from config.yml, approvers from a comma list, the timeout's default is a day", () => {
    const settings = loadApprovalSettings({
      env: { BUB_APPROVERS: "7, 8" },
      config: { approvals: [{ tool: "bash", reason: "shell" }] },
    });
    assert.equal(settings.rules[0]!.reason, "shell");
    assert.deepEqual(settings.approvers, ["7", "8"]);
    assert.equal(settings.timeoutSeconds, 86400);
    assert.throws(
      () => loadApprovalSettings({ env: { BUB_APPROVAL_TIMEOUT_SECONDS: "0" } }),
      /greater than 0/,
    );
  });
});

describe("approval ids and grants", () => {
  test("ids are 10 base32 characters and do not repeat", () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newApprovalId()));
    assert.equal(ids.size, 1000);
    for (const id of ids) assert.match(id, /^[a-z2-7]{10}$/);
  });

  test("an 'always' grant covers the same tool and pattern only", () => {
    const held = { index: 0, callId: "c", tool: "bash", arguments: {}, reason: "", match: "rm " };
    assert.ok(grantCovers([{ tool: "bash", match: "rm " }], held));
    assert.ok(!grantCovers([{ tool: "bash", match: null }], held));
    assert.ok(!grantCovers([{ tool: "fs.write", match: "rm " }], held));
  });
});
