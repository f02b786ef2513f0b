/**
 * Issue 11 item 5: on a fresh machine `bub run`/`bub chat` say how to configure a model instead
 * of calling a default remote one; `--demo` works without a key; every failure is one line
 * unless `--verbose` (or debug logging) asks for details.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";
import { cleanupStack, runCli, tempDirs } from "./_spawn.ts";

/** Lines of `text` that are not empty. */
function lines(text: string): string[] {
  return text.split("\n").filter((line) => line.trim() !== "");
}

describe("no model configured (issue 11 item 5)", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  for (const command of [["run", "hi"], ["chat"]]) {
    test(`bub ${command[0]} with no key explains onboard, the env vars and --demo, exits 1, and calls no model`, async () => {
      const dirs = tempDirs();
      cleanup.defer(() => dirs.remove());
      // An unreachable proxy: any network call would fail loudly instead of leaving the machine.
      const result = await runCli(dirs, command, {
        input: "hello\n",
        env: { HTTPS_PROXY: "http://127.0.0.1:9", HTTP_PROXY: "http://127.0.0.1:9" },
      });
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.stdout, "");
      for (const needle of ["bub onboard", "BUB_MODEL", "BUB_API_KEY", "BUB_API_BASE", "--demo"]) {
        assert.ok(result.stderr.includes(needle), `${needle} missing from:\n${result.stderr}`);
      }
      assert.ok(result.stderr.includes(dirs.configFile), result.stderr);
      assert.doesNotMatch(result.stderr, /examples\//);
      assert.doesNotMatch(result.stderr, /\bat .*:\d+:\d+/); // no stack
      assert.doesNotMatch(result.stderr, /Model call|openrouter\.ai/);
    });
  }

  test('bub run --demo "hello" answers with the mock model and no key', async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const result = await runCli(dirs, ["run", "--demo", "hello"]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^\[cli:local\]\n\*\*You said:\*\* hello/);
    assert.equal(result.stderr, "");
  });

  test("bub chat --demo answers with the mock model and no key", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const result = await runCli(dirs, ["chat", "--demo"], { input: "hello\n,quit\n" });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /You said:/);
  });
});

describe("failures print one line (issue 11 item 5)", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  async function failingModel(): Promise<MockLlmServer> {
    const server = await MockLlmServer.start({
      script: Array.from({ length: 10 }, () => mockReply.error(500, "upstream exploded")),
    });
    cleanup.defer(() => server.close());
    return server;
  }

  test("a failing model call prints at most 2 lines and no stack at the default log level", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const server = await failingModel();
    const result = await runCli(dirs, ["run", "hi"], {
      env: { BUB_MODEL: "custom:x", BUB_API_BASE: server.url, BUB_API_KEY: "k" },
    });
    assert.equal(result.code, 1);
    assert.ok(lines(result.stderr).length <= 2, result.stderr);
    assert.match(
      result.stderr,
      /^bub: .*Model call to custom:x failed.*\(run again with --verbose for details\)$/m,
    );
    assert.doesNotMatch(result.stderr, /\n\s+at /);
    assert.doesNotMatch(result.stderr, /requestBodyValues/);
  });

  test("BUB_LOG_LEVEL=fatal shows one line and no stack", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const server = await failingModel();
    const result = await runCli(dirs, ["run", "hi"], {
      env: {
        BUB_MODEL: "custom:x",
        BUB_API_BASE: server.url,
        BUB_API_KEY: "k",
        BUB_LOG_LEVEL: "fatal",
      },
    });
    assert.equal(result.code, 1);
    assert.equal(lines(result.stderr).length, 1, result.stderr);
    assert.match(result.stderr, /^bub: /);
  });

  for (
    const [how, args, env] of [
      ["--verbose", ["--verbose", "run", "hi"], {}],
      ["BUB_LOG_LEVEL=debug", ["run", "hi"], { BUB_LOG_LEVEL: "debug" }],
    ] as const
  ) {
    test(`${how} shows the stack`, async () => {
      const dirs = tempDirs();
      cleanup.defer(() => dirs.remove());
      const server = await failingModel();
      const result = await runCli(dirs, args, {
        env: { BUB_MODEL: "custom:x", BUB_API_BASE: server.url, BUB_API_KEY: "k", ...env },
      });
      assert.equal(result.code, 1);
      assert.match(result.stderr, /\n\s+at /);
      assert.doesNotMatch(result.stderr, /run again with --verbose/);
    });
  }

  test("a bad setting (negative BUB_MODEL_TIMEOUT_SECONDS) is one line naming the problem", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const server = await MockLlmServer.start({ script: [mockReply.text("never")] });
    cleanup.defer(() => server.close());
    const result = await runCli(dirs, ["run", "hi"], {
      env: {
        BUB_MODEL: "custom:x",
        BUB_API_BASE: server.url,
        BUB_API_KEY: "k",
        BUB_MODEL_TIMEOUT_SECONDS: "-1",
        BUB_LOG_LEVEL: "fatal",
      },
    });
    assert.equal(result.code, 1);
    assert.equal(lines(result.stderr).length, 1, result.stderr);
    assert.match(
      result.stderr,
      /^bub: model_timeout_seconds must be greater than 0.*BUB_MODEL_TIMEOUT_SECONDS.*\(run again with --verbose for details\)$/m,
    );
  });
});
