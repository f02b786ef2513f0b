/**
 * Issue 11 item 7: the config file is `<BUB_HOME>/config.yml` unless `BUB_CONFIG` or `--config`
 * names another; the framework leaves `process.env` alone; the CLI loads `./.env` only (never a
 * parent's), never overriding a set variable, parsing as Node's `util.parseEnv` does.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { parseEnv } from "node:util";
import { BubFramework } from "../../src/builtin/framework.ts";
import { parseDotenv } from "../../src/kernel/configure.ts";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";
import { cleanupStack, runCli, tempDirs } from "./_spawn.ts";

const BROKEN_YAML = "model: [unclosed\n";

describe("config file location (issue 11 item 7)", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test("the default config file is <BUB_HOME>/config.yml, not ~/.bub/config.yml", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    mkdirSync(join(dirs.home, ".bub"), { recursive: true });
    writeFileSync(join(dirs.home, ".bub", "config.yml"), BROKEN_YAML); // must not be read
    let result = await runCli(dirs, ["hooks"]);
    assert.equal(result.code, 0, result.stderr);
    dirs.writeConfig(BROKEN_YAML);
    result = await runCli(dirs, ["hooks"]);
    assert.equal(result.code, 1);
    assert.ok(result.stderr.includes(join(dirs.bubHome, "config.yml")), result.stderr);
    assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
  });

  test("BUB_CONFIG names the config file, and --config <file> (or --config=<file>) overrides it", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const viaEnv = join(dirs.workspace, "env.yml");
    const viaFlag = join(dirs.workspace, "flag.yml");
    writeFileSync(viaEnv, BROKEN_YAML);
    writeFileSync(viaFlag, BROKEN_YAML);
    let result = await runCli(dirs, ["hooks"], { env: { BUB_CONFIG: viaEnv } });
    assert.equal(result.code, 1);
    assert.ok(result.stderr.includes(viaEnv), result.stderr);
    for (const args of [["--config", viaFlag, "hooks"], ["hooks", `--config=${viaFlag}`]]) {
      result = await runCli(dirs, args, { env: { BUB_CONFIG: viaEnv } });
      assert.equal(result.code, 1);
      assert.ok(result.stderr.includes(viaFlag), result.stderr);
    }
    writeFileSync(viaFlag, 'enabled_channels: ""\n');
    result = await runCli(dirs, ["--config", viaFlag, "hooks"], { env: { BUB_CONFIG: viaEnv } });
    assert.equal(result.code, 0, result.stderr);
  });

  test("bub onboard writes the config file into BUB_HOME", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const input = ["openai", "gpt-4o", "", "", "none", "n", ""].join("\n");
    const result = await runCli(dirs, ["onboard"], { input });
    assert.equal(result.code, 0, result.stderr);
    assert.ok(result.stdout.includes(`Saved config to ${join(dirs.bubHome, "config.yml")}`));
  });
});

describe(".env loading (issue 11 item 7)", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  async function model(): Promise<MockLlmServer> {
    const server = await MockLlmServer.start({ script: [mockReply.text("ok")] });
    cleanup.defer(() => server.close());
    return server;
  }

  test("bub reads ./.env (quoted value with # kept, trailing comment dropped) without overriding set variables", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const server = await model();
    writeFileSync(
      join(dirs.workspace, ".env"),
      `BUB_MODEL=custom:from-dotenv\nBUB_API_BASE=${server.url} # the mock\n` +
        'BUB_API_KEY="k#1" # c\nBUB_MAX_TOKENS=77\n',
    );
    const result = await runCli(dirs, ["run", "hi"], { env: { BUB_MAX_TOKENS: "55" } });
    assert.equal(result.code, 0, result.stderr);
    const request = server.requests[0]!;
    assert.equal(request.headers.authorization, "Bearer k#1");
    const body = request.body as { model?: string; max_tokens?: number };
    assert.equal(body.model, "from-dotenv");
    assert.equal(body.max_tokens, 55);
  });

  test("a .env in a parent folder is not read", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const server = await model();
    writeFileSync(
      join(dirname(dirs.workspace), ".env"),
      `BUB_MODEL=custom:x\nBUB_API_BASE=${server.url}\nBUB_API_KEY=k\n`,
    );
    const result = await runCli(dirs, ["run", "hi"]);
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stderr, /no model is configured/);
    assert.equal(server.requests.length, 0);
  });

  test("new BubFramework() does not change process.env, even with a .env in the working directory", () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "bub-dotenv-")));
    const before = process.cwd();
    const name = `BUB_TEST_DOTENV_${process.pid}`;
    writeFileSync(join(dir, ".env"), `${name}=leaked\n`);
    try {
      process.chdir(dir);
      const snapshot = { ...process.env };
      new BubFramework({ home: dir });
      assert.deepEqual({ ...process.env }, snapshot);
      assert.equal(process.env[name], undefined);
    } finally {
      process.chdir(before);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("parseDotenv parses as Node's util.parseEnv (issue 11 item 7)", () => {
  /** Text → what Node 24's `util.parseEnv` gives (Bun's own `parseEnv` differs on escaped quotes). */
  const cases: [string, Record<string, string>][] = [
    ['KEY="a#b" # c', { "KEY": "a#b" }],
    ["A=1 # x\nB='y z'\nexport C=3", { "A": "1", "B": "y z", "C": "3" }],
    ['M="line1\\nline2"', { "M": "line1\nline2" }],
    ['Q="multi\nline"\nR=2', { "Q": "multi\nline", "R": "2" }],
    ['U="unterminated\nV=1', { "U": '"unterminated', "V": "1" }],
    ["E=\nF=2", { "E": "", "F": "2" }],
    ["  G = spaced value  ", { "G": "spaced value" }],
    ["H=a#b", { "H": "a" }],
    ["#c\n\nI=`bt`", { "I": "bt" }],
    ["J='s' trailing\nK=k", { "J": "s", "K": "k" }],
    ["=novalue\nL=1", { "L": "1" }],
    ["noequals\nM=1", { "M": "1" }],
    ['N="x"y"', { "N": "x" }],
    ["O=", { "O": "" }],
    ["P= 'q' ", { "P": "q" }],
    ["export  S=1", { "S": "1" }],
    ['T="a\\"b"', { "T": "a\\" }],
    ["W=x=y", { "W": "x=y" }],
    ["X=1\r\nY=2\r\n", { "X": "1", "Y": "2" }],
  ];

  test("every case parses as Node 24's util.parseEnv does", () => {
    for (const [text, expected] of cases) {
      assert.deepEqual(parseDotenv(text), expected, JSON.stringify(text));
    }
  });

  test("and as this runtime's util.parseEnv on Node", {
    skip: "Bun" in globalThis || "Deno" in globalThis,
  }, () => {
    for (const [text] of cases) {
      assert.deepEqual(parseDotenv(text), { ...parseEnv(text) }, JSON.stringify(text));
    }
  });
});
