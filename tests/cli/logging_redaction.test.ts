import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { getLogger, reset } from "@logtape/logtape";
import { configureCliLogging, fileSink, stderrSink } from "../../src/cli/logging.ts";

const API_KEY = "sk-redact-me-0123456789";
const TOKEN = "987654321:AAH-telegram_secret";

describe("CLI log sinks redact secrets", () => {
  const saved = { key: process.env.BUB_OPENAI_API_KEY, token: process.env.BUB_TELEGRAM_TOKEN };
  afterEach(async () => {
    await reset();
    for (
      const [name, value] of [["BUB_OPENAI_API_KEY", saved.key], [
        "BUB_TELEGRAM_TOKEN",
        saved.token,
      ]] as const
    ) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  function logSecrets(): void {
    const logger = getLogger(["bub", "redaction-test"]);
    logger.error("download failed url={url}", {
      url: `https://api.telegram.org/file/bot${TOKEN}/photos/1.jpg`,
    });
    logger.warning("provider said: invalid key {key}", { key: API_KEY });
    logger.error("wrapped: {error}", { error: new Error(`bad token ${TOKEN} or key ${API_KEY}`) });
    logger.error("a bot path of another token: /bot1234:zzzSECRETzzz/getMe");
  }

  test("the stderr sink writes no env secret value and no bot<digits>:<secret>", () => {
    process.env.BUB_OPENAI_API_KEY = API_KEY;
    process.env.BUB_TELEGRAM_TOKEN = TOKEN;
    const lines: string[] = [];
    assert.ok(
      configureCliLogging({ level: "debug", sink: stderrSink((t) => lines.push(t)), reset: true }),
    );
    logSecrets();
    const text = lines.join("");
    assert.equal(lines.length, 4, text);
    for (const secret of [API_KEY, TOKEN, "AAH-telegram_secret", "zzzSECRETzzz"]) {
      assert.ok(!text.includes(secret), `leaked ${secret}: ${text}`);
    }
    assert.match(text, /file\/bot\[REDACTED\]\/photos/);
    assert.match(text, /invalid key ["']?\[REDACTED\]/);
  });

  test("the file sink redacts too and creates its log file 0600", () => {
    process.env.BUB_OPENAI_API_KEY = API_KEY;
    process.env.BUB_TELEGRAM_TOKEN = TOKEN;
    const dir = mkdtempSync(join(tmpdir(), "bub-log-redact-"));
    try {
      const path = join(dir, "logs", "bub.log");
      configureCliLogging({ level: "debug", sink: fileSink(path), reset: true });
      logSecrets();
      const text = readFileSync(path, "utf8");
      assert.ok(!text.includes(API_KEY) && !text.includes("AAH-telegram_secret"), text);
      assert.match(text, /\[REDACTED\]/);
      if (process.platform !== "win32") {
        assert.equal(statSync(path).mode & 0o777, 0o600);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
