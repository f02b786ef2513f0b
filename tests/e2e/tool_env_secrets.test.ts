/**
 * `bub run` as a real subprocess whose model runs `env` through the bash tool: the tool result
 * the model sees (and the tape) holds no API key or bot token, while plain variables and names in
 * BUB_TOOL_ENV_PASSTHROUGH are kept.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";
import { cleanupStack, runCli, tempDirs } from "../cli/_spawn.ts";

const SECRETS = {
  BUB_API_KEY: "sk-run-secret-0001",
  BUB_OPENAI_API_KEY: "sk-openai-secret-0002",
  BUB_TELEGRAM_TOKEN: "123456:telegram-secret-0003",
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe("bash tool environment under bub run", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test("env run by the model shows no BUB_*KEY*/TOKEN* values; passthrough names and plain ones stay", async () => {
    const dirs = tempDirs();
    const server = await MockLlmServer.start({
      script: [mockReply.toolCall("bash", { command: "env | sort" }), mockReply.text("done")],
    });
    cleanup.defer(async () => {
      await server.close();
      dirs.remove();
    });
    const result = await runCli(dirs, ["run", "print the environment"], {
      env: {
        BUB_MODEL: "custom:x",
        BUB_API_BASE: server.url,
        ...SECRETS,
        BUB_PASS_TOKEN: "passthrough-ok",
        BUB_TOOL_ENV_PASSTHROUGH: "BUB_PASS_TOKEN",
        BUB_PLAIN_FLAG: "visible",
      },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(server.requests.length, 2);
    const seen = JSON.stringify(server.requests[1]!.body);
    assert.match(seen, /BUB_PLAIN_FLAG=visible/);
    assert.match(seen, /BUB_PASS_TOKEN=passthrough-ok/);
    assert.match(seen, /BUB_MODEL=custom:x/);
    const tapes = filesUnder(dirs.bubHome).map((path) => readFileSync(path, "utf8")).join("\n");
    assert.match(tapes, /BUB_PLAIN_FLAG=visible/);
    for (const [name, value] of Object.entries(SECRETS)) {
      assert.ok(!seen.includes(value) && !seen.includes(`${name}=`), `${name} reached the model`);
      assert.ok(!tapes.includes(value), `${name} reached the tape`);
    }
  });
});
