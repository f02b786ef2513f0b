/**
 * An `api_key` set only in config.yml (not in any environment) is redacted by every in-process
 * sink when a provider echoes it in an error: the log line (Bub's LogTape sink), the tape's
 * record of the error (the `loop.step` event) and the web console's list of secrets. A real builtin framework against MockLlmServer.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { reset } from "@logtape/logtape";
import { consoleSecrets } from "../../src/builtin/console_secrets.ts";
import { configureCliLogging, stderrSink } from "../../src/cli/logging.ts";
import { mockReply, type MockRequest } from "../../src/testing/mock_llm_server.ts";
import { eventData, turnFixture } from "../agent/_turn_fixture.ts";

const KEY = "sk-config-only-SINKS-5b7e21";

function echoKey(request: MockRequest) {
  const key = request.headers.authorization?.replace(/^Bearer /, "") ?? "(none)";
  return mockReply.error(401, `Incorrect API key provided: ${key}`);
}

describe("a config.yml-only api_key echoed by the provider", () => {
  afterEach(() => reset());

  test("is [REDACTED] in the log line, the tape's error records and the console's secrets", async () => {
    const lines: string[] = [];
    configureCliLogging({
      level: "debug",
      sink: stderrSink((line) => lines.push(line)),
      reset: true,
    });
    await using fx = await turnFixture({
      script: echoKey,
      env: { BUB_API_KEY: undefined },
      config: { api_key: { openai: KEY } },
    });
    await assert.rejects(fx.turn("hi", { stream: false }), /Incorrect API key/);
    assert.equal(fx.server.requests[0]!.headers.authorization, `Bearer ${KEY}`);

    const log = lines.join("");
    assert.match(log, /Incorrect API key provided: \[REDACTED\]/, log);
    assert.ok(!log.includes(KEY), log);

    const entries = await fx.entries();
    const steps = eventData(entries, "loop.step");
    assert.match(String(steps.at(-1)?.error), /Incorrect API key provided: \[REDACTED\]/);
    assert.ok(!JSON.stringify(entries).includes(KEY), "no tape entry holds the key");

    const secrets = consoleSecrets(fx.builtin.runtime.sources);
    assert.ok(secrets.includes(KEY), "the console hides the config.yml key");
  });
});
