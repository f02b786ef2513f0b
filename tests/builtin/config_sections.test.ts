import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { BubError } from "../../src/kernel/errors.ts";
import { definePlugin } from "../../src/kernel/plugin.ts";
import { registerConfigSection } from "../../src/kernel/configure.ts";
import { BuiltinRuntime } from "../../src/builtin/runtime.ts";
import type { BubFramework } from "../../src/builtin/framework.ts";
import type { Prompter } from "../../src/builtin/onboard.ts";
import { renderSkillText } from "../../src/skills/body.ts";
import { kernelFixture } from "../_helpers/kernel.ts";

function configError(message: string) {
  return (error: unknown) => {
    assert.ok(BubError.isInstance(error), `expected a BubError, got ${String(error)}`);
    assert.equal(error.kind, "config");
    assert.match(error.message, new RegExp(message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
    return true;
  };
}

/** Answers every onboarding question with its default (an empty line). */
const defaults: Prompter = {
  select: (_question, _choices, fallback) => fallback,
  text: (_question, fallback) => fallback ?? "",
  secret: () => "",
  checkbox: (_question, _choices, fallback) => [...fallback],
  confirm: (_question, fallback) => fallback,
};

describe("builtin config sections (spec/builtin.md §7.3, §12.2, §12.6)", () => {
  test("onboarding validates the builtin sections once the builtin plugin is loaded", () => {
    using fx = kernelFixture({ builtin: true });
    (fx.framework as BubFramework).prompter = defaults;
    const fragment: { value: Record<string, unknown> } = { value: {} };
    fx.framework.register(definePlugin({ name: "extra", onboardConfig: () => fragment.value }));

    fragment.value = { model: "openai:gpt-5", telegram: { token: "1:a" }, spill: { threshold: 8 } };
    const config = fx.framework.collectOnboardConfig();
    assert.equal(config.model, "openai:gpt-5");
    assert.deepEqual(config.spill, { threshold: 8 });

    fragment.value = { max_steps: 0 };
    assert.throws(
      () => fx.framework.collectOnboardConfig(),
      configError("max_steps must be greater than 0, got 0"),
    );
    fragment.value = { spill: { threshold: "big" } };
    assert.throws(
      () => fx.framework.collectOnboardConfig(),
      configError("spill.threshold must be an integer"),
    );
    fragment.value = { telegram: "not a mapping" };
    assert.throws(
      () => fx.framework.collectOnboardConfig(),
      configError('section "telegram" must be a mapping'),
    );
  });

  test("${config.<path>} in a skill body renders registered settings only; unknown paths are empty", () => {
    using fx = kernelFixture({
      builtin: true,
      config: [
        "model: openai:gpt-5",
        "telegram: {token: '123:abc'}",
        "secrets: {db_password: hunter2}",
        "dead_test_plugin: {greeting: hello}",
      ].join("\n") + "\n",
    });
    const runtime = new BuiltinRuntime(fx.framework, { env: { BUB_SPILL_THRESHOLD: "77" } });
    const render = (text: string) => renderSkillText(text, "/s", { config: runtime.configLookup });

    assert.equal(render("${config.model}"), "openai:gpt-5");
    assert.equal(render("${config.telegram.token}"), "123:abc");
    assert.equal(render("${config.spill.threshold}"), "77", "environment overrides apply");
    assert.equal(render("[${config.secrets.db_password}]"), "[]", "an unregistered YAML key");
    assert.equal(render("[${config.secrets}]"), "[]");
    assert.equal(render("[${config.dead_test_plugin.greeting}]"), "[]");

    registerConfigSection("dead_test_plugin", () => {});
    assert.equal(
      render("${config.dead_test_plugin.greeting}"),
      "hello",
      "a section a plugin registers reads its YAML data",
    );
    assert.equal(render("[${config.dead_test_plugin.missing}]"), "[]");
  });
});
