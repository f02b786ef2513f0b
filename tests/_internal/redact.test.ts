import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  isSecretEnvName,
  isSecretName,
  redactedErrorText,
  redactSecrets,
  secretEnvValues,
} from "../../src/_internal/redact.ts";

describe("secret redaction", () => {
  test("secret env names: BUB_ names shaped like a secret, and the provider keys Bub reads", () => {
    for (
      const name of [
        "BUB_API_KEY",
        "BUB_OPENAI_API_KEY",
        "BUB_TELEGRAM_TOKEN",
        "bub_x_secret",
        "BUB_DB_PASSWORD",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "GOOGLE_GENERATIVE_AI_API_KEY",
        "AWS_SECRET_ACCESS_KEY",
      ]
    ) {
      assert.ok(isSecretEnvName(name), name);
    }
    for (
      const name of [
        "BUB_MODEL",
        "BUB_MAX_TOKENS",
        "BUB_TOOL_ENV_PASSTHROUGH",
        "PATH",
        "GITHUB_TOKEN",
      ]
    ) {
      assert.ok(!isSecretEnvName(name), name);
    }
  });

  test("secret-shaped names: a key/token segment, secret, password, authorization, any case", () => {
    for (
      const name of [
        "api_key",
        "token",
        "Authorization",
        "X-Api-Key",
        "accessToken",
        "client_secret",
        "dbPassword",
        "GITHUB_TOKEN",
        "Cookie",
      ]
    ) {
      assert.ok(isSecretName(name), name);
    }
    for (const name of ["max_tokens", "model", "api_base", "keyboard", "tokenizer", "Accept"]) {
      assert.ok(!isSecretName(name), name);
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

  test("the environment's secrets include other secret-shaped names and URL passwords", () => {
    const values = secretEnvValues({
      GITHUB_TOKEN: "ghp_abcdef123456",
      OPENAI_API_KEY: "sk-openai-000111",
      DATABASE_URL: "postgres://bub:p%40ss-word-9@db:5432/bub",
      BUB_TAPE_STORE: "postgresql://u:tape-pass-77@127.0.0.1/t",
      HOME: "/home/someone",
      BUB_MAX_TOKENS: "1000000",
    });
    assert.deepEqual(
      new Set(values),
      new Set([
        "ghp_abcdef123456",
        "sk-openai-000111",
        "p%40ss-word-9",
        "p@ss-word-9",
        "tape-pass-77",
      ]),
    );
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
