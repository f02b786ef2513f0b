/**
 * Issue 27 item 3, library mode: a program that embeds Bub cannot start itself again, so when
 * Bub's settings read a key that is in the program's start-up environment (readable by every
 * command Bub runs from /proc/<pid>/environ on Linux), Bub warns once per process, naming the
 * variable and what to do. A key from config.yml, or `BUB_KEEP_ENV=1`, gives no warning.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import process from "node:process";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";
import { cleanupStack, ROOT, runScript, tempDirs } from "./_spawn.ts";

const PROGRAM = join(ROOT, "tests", "cli", "_library_turn.ts");
const KEY = "sk-library-key-0123456789";
const linux = process.platform === "linux";
if (!linux) {
  console.log(`# skipped: /proc/<pid>/environ exists on Linux only (${process.platform})`);
}

const WARNING = /\[BUB_ENV_SECRETS\] Warning: (\S+) is in this process's start-up environment/g;

describe("library mode: one warning per process for a key in the start-up environment", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  async function twoTurns(env: Record<string, string>, config = "") {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    if (config) dirs.writeConfig(config);
    const server = await MockLlmServer.start({
      script: [mockReply.text("first answer"), mockReply.text("second answer")],
    });
    cleanup.defer(() => server.close());
    const result = await runScript(PROGRAM, dirs, [], {
      env: { BUB_API_BASE: server.url, ...env },
      timeoutMs: 60_000,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "first answer\nsecond answer\n");
    assert.equal(server.requests.length, 2);
    return { ...result, server, warned: [...result.stderr.matchAll(WARNING)].map((m) => m[1]) };
  }

  test(
    "BUB_API_KEY in the start-up environment: one warning over two turns, naming it, /proc/<pid>/environ and the remedies",
    {
      skip: !linux,
    },
    async () => {
      const run = await twoTurns({ BUB_MODEL: "custom:x", BUB_API_KEY: KEY });
      assert.deepEqual(run.warned, ["BUB_API_KEY"], run.stderr);
      assert.match(run.stderr, /\/proc\/\d+\/environ/);
      assert.match(run.stderr, /config\.yml/);
      assert.match(run.stderr, /`bub` command/);
      assert.match(run.stderr, /BUB_KEEP_ENV=1/);
      assert.equal(
        run.stderr.includes(KEY),
        false,
        "the warning names the variable, not its value",
      );
      assert.equal(run.server.requests[0]!.headers.authorization, `Bearer ${KEY}`);
    },
  );

  test("OPENAI_API_KEY read by the openai provider is named too", { skip: !linux }, async () => {
    const run = await twoTurns({ BUB_MODEL: "openai:gpt-x", OPENAI_API_KEY: KEY });
    assert.deepEqual(run.warned, ["OPENAI_API_KEY"], run.stderr);
    assert.equal(run.server.requests[0]!.headers.authorization, `Bearer ${KEY}`);
  });

  test(
    "a key from config.yml gives no warning (nor does BUB_MAX_TOKENS, which only looks secret)",
    {
      skip: !linux,
    },
    async () => {
      const env = { BUB_MODEL: "custom:x", BUB_MAX_TOKENS: "1000" };
      const run = await twoTurns(env, `api_key: ${KEY}\n`);
      assert.deepEqual(run.warned, [], run.stderr);
      assert.doesNotMatch(run.stderr, /BUB_ENV_SECRETS/);
      assert.equal(run.server.requests[0]!.headers.authorization, `Bearer ${KEY}`);
    },
  );

  test("BUB_KEEP_ENV=1 silences the warning", { skip: !linux }, async () => {
    const run = await twoTurns({ BUB_MODEL: "custom:x", BUB_API_KEY: KEY, BUB_KEEP_ENV: "1" });
    assert.doesNotMatch(run.stderr, /BUB_ENV_SECRETS/);
  });
});
