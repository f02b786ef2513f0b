/**
 * The real `bub` CLI (a subprocess) with secrets set only in config.yml: a provider error
 * echoing the `api_key` shows `[REDACTED]` in the log line and in `bub`'s error line, and
 * `bub mcp` shows a failed server's stderr echoing its `env` token as `[REDACTED]`.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { MockLlmServer, mockReply, type MockRequest } from "../../src/testing/mock_llm_server.ts";
import { cleanupStack, runCli, tempDirs } from "./_spawn.ts";

const KEY = "sk-config-only-CLI-0c4f9e";
const MCP_TOKEN = "mcp-env-token-CLI-77aa31";

describe("bub with secrets only in config.yml", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test("bub run: the provider's echo of the api_key is [REDACTED] in the log and error lines", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const server = await MockLlmServer.start({
      script: (request: MockRequest) =>
        mockReply.error(401, `Incorrect API key provided: ${request.headers.authorization}`),
    });
    cleanup.defer(() => server.close());
    dirs.writeConfig(JSON.stringify({ model: "openai:gpt-x", api_key: KEY, api_base: server.url }));
    const result = await runCli(dirs, ["run", "hi"], { timeoutMs: 60_000 });
    assert.equal(result.code, 1, result.stderr);
    assert.equal(server.requests[0]?.headers.authorization, `Bearer ${KEY}`);
    assert.match(
      result.stderr,
      /^bub: .*Incorrect API key provided: Bearer \[REDACTED\] \(run again with --verbose/m,
    );
    assert.ok(!(result.stdout + result.stderr).includes(KEY), result.stderr);
    // --verbose shows every log record as it comes: the kernel's line is redacted too.
    const verbose = await runCli(dirs, ["--verbose", "run", "hi"], { timeoutMs: 60_000 });
    assert.equal(verbose.code, 1, verbose.stderr);
    assert.match(
      verbose.stderr,
      /\[ERR\] bub·kernel: .*Incorrect API key provided: Bearer \[REDACTED\]/,
      verbose.stderr,
    );
    assert.ok(!(verbose.stdout + verbose.stderr).includes(KEY), verbose.stderr);
  });

  test("bub mcp: a failed server's stderr echoing its env token is [REDACTED]", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    dirs.writeConfig(JSON.stringify({
      mcp_servers: {
        broken: {
          command: "sh",
          args: ["-c", 'echo "auth failed for token $API_TOKEN" >&2; exit 2'],
          env: { API_TOKEN: MCP_TOKEN },
        },
      },
    }));
    const result = await runCli(dirs, ["mcp"], { timeoutMs: 60_000 });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, /^broken \(stdio\): failed$/m);
    assert.match(result.stdout, /^ {2}auth failed for token \[REDACTED\]$/m, result.stdout);
    assert.ok(!(result.stdout + result.stderr).includes(MCP_TOKEN), result.stdout + result.stderr);
  });
});
