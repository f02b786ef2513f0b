/**
 * Issue 11 item 8: `bub --version`, every command in `--help`, and `bub run` streaming the answer
 * when stdout is a terminal (printing it whole when piped).
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { VERSION } from "../../src/version.ts";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";
import {
  BIN,
  childEnv,
  cleanupStack,
  ROOT,
  runCli,
  runtimeCommand,
  startChild,
  tempDirs,
} from "./_spawn.ts";

function hasScript(): boolean {
  try {
    execFileSync("script", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** A single-quoted shell word. */
function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

describe("bub --version and --help (issue 11 item 8)", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test("VERSION is the version of deno.json and package.json", () => {
    for (const file of ["deno.json", "package.json"]) {
      const manifest = JSON.parse(readFileSync(join(ROOT, file), "utf8")) as { version: string };
      assert.equal(VERSION, manifest.version, file);
    }
  });

  for (const flag of ["--version", "-V"]) {
    test(`bub ${flag} prints the package version`, async () => {
      const dirs = tempDirs();
      cleanup.defer(() => dirs.remove());
      const result = await runCli(dirs, [flag]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, `${VERSION}\n`);
    });
  }

  test("bub --help lists every command, hooks included, and the global options", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const result = await runCli(dirs, ["--help"]);
    assert.equal(result.code, 0, result.stderr);
    for (const command of ["run", "chat", "gateway", "onboard", "hooks"]) {
      assert.match(result.stdout, new RegExp(`^  ${command}\\b`, "m"), command);
    }
    for (const option of ["--version", "--config <file>", "--verbose", "--workspace"]) {
      assert.ok(result.stdout.includes(option), option);
    }
  });
});

describe("bub run output (issue 11 item 8)", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  async function slowModel(): Promise<MockLlmServer> {
    const server = await MockLlmServer.start({
      script: [mockReply.text("first-part second-part last-part", { chunks: 3, delayMs: 700 })],
    });
    cleanup.defer(() => server.close());
    return server;
  }

  const env = (server: MockLlmServer) => ({
    BUB_MODEL: "custom:x",
    BUB_API_BASE: server.url,
    BUB_API_KEY: "k",
  });

  test("--stream prints the answer as it arrives", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const server = await slowModel();
    const child = startChild(runtimeCommand(BIN, ["run", "--stream", "hi"]), {
      cwd: dirs.workspace,
      env: childEnv(dirs, env(server)),
    });
    cleanup.defer(() => child[Symbol.asyncDispose]());
    await child.waitFor("first-part", { timeoutMs: 30_000 });
    assert.doesNotMatch(child.stdout, /last-part/, "the first chunk waited for the last");
    assert.equal(await child.exited(30_000), 0, child.stderr);
    assert.equal(child.stdout, "[cli:local]\nfirst-part second-part last-part\n");
  });

  test("piped (the default off a terminal) prints the answer whole", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const server = await slowModel();
    const child = startChild(runtimeCommand(BIN, ["run", "hi"]), {
      cwd: dirs.workspace,
      env: childEnv(dirs, env(server)),
    });
    cleanup.defer(() => child[Symbol.asyncDispose]());
    await child.waitFor("first-part", { timeoutMs: 30_000 });
    assert.match(child.stdout, /last-part/);
    assert.equal(await child.exited(30_000), 0, child.stderr);
    assert.equal(child.stdout, "[cli:local]\nfirst-part second-part last-part\n");
  });

  test("on a terminal (script(1) gives it a pty) the answer streams", {
    skip: !hasScript() && "script(1) is not installed",
  }, async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const server = await slowModel();
    const command = runtimeCommand(BIN, ["run", "hi"]).map(quote).join(" ");
    const child = startChild(["script", "-qfec", command, "/dev/null"], {
      cwd: dirs.workspace,
      env: childEnv(dirs, env(server)),
    });
    cleanup.defer(() => child[Symbol.asyncDispose]());
    await child.waitFor("first-part", { timeoutMs: 30_000 });
    assert.doesNotMatch(child.stdout, /last-part/, "the first chunk waited for the last");
    assert.equal(await child.exited(30_000), 0, child.stderr);
    assert.match(child.stdout.replaceAll("\r", ""), /first-part second-part last-part\n/);
  });
});
