import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  isSecretEnvName,
  redactedErrorText,
  redactSecrets,
  secretEnvValues,
} from "../../src/_internal/redact.ts";

describe("secret redaction", () => {
  test("secret names are BUB_ variables holding KEY, TOKEN or SECRET, in any case", () => {
    for (
      const name of ["BUB_API_KEY", "BUB_OPENAI_API_KEY", "BUB_TELEGRAM_TOKEN", "bub_x_secret"]
    ) {
      assert.ok(isSecretEnvName(name), name);
    }
    for (const name of ["BUB_MODEL", "OPENAI_API_KEY", "BUB_TOOL_ENV_PASSTHROUGH", "PATH"]) {
      assert.ok(!isSecretEnvName(name), name);
    }
  });

  test("secret values are collected longest first; short and blank ones are skipped", () => {
    const values = secretEnvValues({
      BUB_API_KEY: "sk-1234567",
      BUB_X_TOKEN: "sk-1234567-longer",
      BUB_Y_SECRET: "abc",
      BUB_MODEL: "openai:gpt-4o-long-value",
      BUB_Z_KEY: undefined,
    });
    assert.deepEqual(values, ["sk-1234567-longer", "sk-1234567"]);
  });

  test("bot<digits>:<secret> and listed values are replaced everywhere in the text", () => {
    const text = "GET https://h/file/bot42:AA-b_c/x.jpg and /bot7:zz/getMe key=sk-1234567-longer";
    assert.equal(
      redactSecrets(text, ["sk-1234567-longer", "sk-1234567"]),
      "GET https://h/file/bot[REDACTED]/x.jpg and /bot[REDACTED]/getMe key=[REDACTED]",
    );
    assert.equal(redactSecrets("robot:arm and bot:x", []), "robot:arm and bot:x");
  });

  test("an error's text and cause are redacted", () => {
    const error = new Error("Cannot download https://h/file/bot1:SECRET/p", {
      cause: new Error("token 1:SECRET refused"),
    });
    assert.equal(
      redactedErrorText(error, ["1:SECRET"]),
      "Error: Cannot download https://h/file/bot[REDACTED]/p (cause: token [REDACTED] refused)",
    );
  });
});
