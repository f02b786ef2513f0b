import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";
import { cleanupStack, runCli, tempDirs } from "./_spawn.ts";

describe("bub chat logging (builtin §10.4, §11.1)", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  for (const global of [["-w", "."], ["--workspace", "."], ["--workspace=."]]) {
    test(`with the global option ${global.join(" ")} before chat, logs go to <BUB_HOME>/logs/bub.log, not to the terminal`, async () => {
      const dirs = tempDirs();
      const server = await MockLlmServer.start({ script: [mockReply.text("hi there")] });
      cleanup.defer(async () => {
        await server.close();
        dirs.remove();
      });
      const result = await runCli(dirs, [...global, "chat"], {
        input: "hello\n,quit\n",
        env: {
          BUB_LOG_LEVEL: "info",
          BUB_MODEL: "custom:x",
          BUB_API_BASE: server.url,
          BUB_API_KEY: "sk-log",
        },
      });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /Bye\.\n$/);
      assert.equal(result.stderr, "", "log records were written to the terminal");
      const logFile = join(dirs.bubHome, "logs", "bub.log");
      assert.ok(existsSync(logFile), "no log file");
      assert.match(readFileSync(logFile, "utf8"), /Starting channel/);
    });
  }
});
