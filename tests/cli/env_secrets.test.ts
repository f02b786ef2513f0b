/**
 * Issue 27 item 3: a command run by a builtin tool finds no secret in the environment of any
 * process of Bub's. The real `bub` CLI runs with API keys and a bot token in its environment; the
 * mock model asks for a `bash` command that reads `/proc/<pid>/environ` of itself, of the `bub`
 * process and of every ancestor up to this test process (exclusive) and prints any secret it finds.
 * The keys must still reach the provider.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";
import {
  BIN,
  childEnv,
  cleanupStack,
  ROOT,
  runCli,
  runtimeCommand,
  startChild,
  type TempDirs,
  tempDirs,
} from "./_spawn.ts";

const API_KEY = "sk-envtest-api-key-0123456789";
const OPENAI_KEY = "sk-envtest-openai-key-9876543210";
const BOT_TOKEN = "123456789:AAH-envtest_bot_token";
const SECRETS = [API_KEY, OPENAI_KEY, BOT_TOKEN];
const linux = process.platform === "linux";
if (!linux) {
  console.log(`# skipped: /proc/<pid>/environ exists on Linux only (${process.platform})`);
}

/**
 * A shell command printing `scanned <pid>` for the process `from` (the shell itself, `$$`, or its
 * parent, `$PPID`) and each ancestor up to `stopPid` (exclusive), and `leak in <pid>: <line>` for
 * every environment entry holding one of `needles`.
 */
function scanCommand(stopPid: number, needles: readonly string[], from = "$$"): string {
  const patterns = needles.map((needle) => `-e '${needle}'`).join(" ");
  return [
    `pid=${from}`,
    `while [ -n "$pid" ] && [ "$pid" -gt 1 ] && [ "$pid" != ${stopPid} ]; do`,
    `  echo "scanned $pid"`,
    `  tr '\\0' '\\n' < /proc/$pid/environ | grep -F ${patterns} | sed "s/^/leak in $pid: /"`,
    `  pid=$(awk '/^PPid:/{print $2}' /proc/$pid/status)`,
    `done`,
    `true`,
  ].join("\n");
}

/** The text of every tool result the model was sent. */
function toolResults(server: MockLlmServer): string {
  const texts: string[] = [];
  for (const request of server.requests) {
    const messages = (request.body as { messages?: { role: string; content: unknown }[] })
      .messages ?? [];
    for (const message of messages) {
      if (message.role === "tool") texts.push(JSON.stringify(message.content));
    }
  }
  return texts.join("\n");
}

interface ScanRun {
  pid: number;
  code: number | null;
  stdout: string;
  stderr: string;
  scan: string;
  server: MockLlmServer;
}

async function runScan(
  dirs: TempDirs,
  env: Record<string, string>,
  cleanup: { defer(fn: () => unknown): void },
  options: { from?: string; script?: string } = {},
): Promise<ScanRun> {
  const from = options.from ?? "$$";
  const server = await MockLlmServer.start({
    script: [
      mockReply.toolCall("bash", { command: scanCommand(process.pid, SECRETS, from) }),
      mockReply.text("scan done"),
    ],
  });
  cleanup.defer(() => server.close());
  const script = options.script ?? BIN;
  const child = startChild(runtimeCommand(script, ["run", "scan the environment"]), {
    cwd: dirs.workspace,
    env: childEnv(dirs, { BUB_API_BASE: server.url, ...env }),
  });
  cleanup.defer(() => child[Symbol.asyncDispose]());
  child.end();
  const code = await child.exited(60_000);
  return {
    pid: child.process.pid!,
    code,
    stdout: child.stdout,
    stderr: child.stderr,
    scan: toolResults(server),
    server,
  };
}

describe("no secret in the environment of any Bub process (issue 27 item 3)", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test(
    "a bash tool command finds no key or token in /proc/<pid>/environ of itself, bub or any ancestor, and the key still reaches the provider",
    {
      skip: !linux,
    },
    async () => {
      const dirs = tempDirs();
      cleanup.defer(() => dirs.remove());
      const run = await runScan(dirs, {
        BUB_MODEL: "custom:x",
        BUB_API_KEY: API_KEY,
        BUB_TELEGRAM_TOKEN: BOT_TOKEN,
      }, cleanup);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /scan done/);
      // The scan ran and reached the bub process itself ...
      assert.match(run.scan, new RegExp(`scanned ${run.pid}\\b`), run.scan);
      // ... and found nothing.
      assert.doesNotMatch(run.scan, /leak in/, run.scan);
      for (const secret of SECRETS) assert.equal(run.scan.includes(secret), false, run.scan);
      assert.equal(run.server.requests[0]!.headers.authorization, `Bearer ${API_KEY}`);
      assert.equal(run.stderr, "");
    },
  );

  // The scan starts at the command itself: the tool environment's scrub names *_API_KEY too.
  test(
    "a provider key Bub reads directly (OPENAI_API_KEY) reaches the provider and is in no environment of the command, bub or its ancestors",
    {
      skip: !linux,
    },
    async () => {
      const dirs = tempDirs();
      cleanup.defer(() => dirs.remove());
      const env = { BUB_MODEL: "openai:gpt-x", OPENAI_API_KEY: OPENAI_KEY };
      const run = await runScan(dirs, env, cleanup);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.scan, new RegExp(`scanned ${run.pid}\\b`), run.scan);
      assert.doesNotMatch(run.scan, /leak in/, run.scan);
      assert.equal(run.server.requests[0]!.headers.authorization, `Bearer ${OPENAI_KEY}`);
    },
  );

  test(
    "run as the cli module (src/cli/mod.ts, the route of `deno run -A jsr:@bub/core/cli`), bub holds no key either",
    {
      skip: !linux,
    },
    async () => {
      const dirs = tempDirs();
      cleanup.defer(() => dirs.remove());
      const env = { BUB_MODEL: "custom:x", BUB_API_KEY: API_KEY, BUB_TELEGRAM_TOKEN: BOT_TOKEN };
      const script = join(ROOT, "src", "cli", "mod.ts");
      const run = await runScan(dirs, env, cleanup, { script });
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.scan, new RegExp(`scanned ${run.pid}\\b`), run.scan);
      assert.doesNotMatch(run.scan, /leak in/, run.scan);
      assert.equal(run.server.requests[0]!.headers.authorization, `Bearer ${API_KEY}`);
    },
  );

  test("with BUB_KEEP_ENV=1 bub keeps its start-up environment, and the same scan finds the keys", {
    skip: !linux,
  }, async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const env = {
      BUB_MODEL: "custom:x",
      BUB_API_KEY: API_KEY,
      BUB_TELEGRAM_TOKEN: BOT_TOKEN,
      BUB_KEEP_ENV: "1",
    };
    const run = await runScan(dirs, env, cleanup);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.scan, new RegExp(`leak in ${run.pid}: BUB_API_KEY=${API_KEY}`), run.scan);
    assert.match(run.scan, new RegExp(`leak in ${run.pid}: BUB_TELEGRAM_TOKEN=`), run.scan);
    assert.equal(run.stderr, "", "BUB_KEEP_ENV=1 also silences the warning");
  });

  test(
    "the handoff file is gone once bub runs, and a stale one left by a dead process is removed",
    {
      skip: !linux,
    },
    async () => {
      const dirs = tempDirs();
      cleanup.defer(() => dirs.remove());
      const runtimeDir = join(dirs.tmp, "run");
      const handoffDir = join(runtimeDir, "bub");
      mkdirSync(handoffDir, { recursive: true, mode: 0o700 });
      chmodSync(runtimeDir, 0o700);
      // pid 4194305 is above Linux's largest pid: no process has it.
      const stale = join(handoffDir, `4194305-${"ab".repeat(16)}`);
      writeFileSync(stale, JSON.stringify({ BUB_API_KEY: "stale" }), { mode: 0o600 });
      writeFileSync(join(handoffDir, "unrelated.txt"), "kept");
      const result = await runCli(dirs, ["hooks"], {
        env: { BUB_API_KEY: API_KEY, XDG_RUNTIME_DIR: runtimeDir },
      });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(existsSync(stale), false, "the stale handoff file was removed");
      assert.deepEqual(readdirSync(handoffDir), ["unrelated.txt"]);
    },
  );

  test(
    "a BUB_ENV_HANDOFF naming a file that is not this process's handoff file is refused, exit 1, the file untouched",
    {
      skip: !linux,
    },
    async () => {
      const dirs = tempDirs();
      cleanup.defer(() => dirs.remove());
      const forged = join(dirs.tmp, `12345-${"cd".repeat(16)}`);
      writeFileSync(forged, JSON.stringify({ BUB_API_KEY: "forged" }), { mode: 0o600 });
      const result = await runCli(dirs, ["hooks"], { env: { BUB_ENV_HANDOFF: forged } });
      assert.equal(result.code, 1);
      assert.match(result.stderr, /^bub: cannot take back the keys .*BUB_ENV_HANDOFF=/);
      assert.match(result.stderr, /is not a handoff file of process \d+/);
      assert.equal(result.stdout, "");
      assert.ok(existsSync(forged), "the named file was not deleted");
    },
  );

  test(
    "Deno without -A cannot start again: bub runs on and prints one warning naming the key and why",
    {
      skip: !linux || !("Deno" in globalThis),
    },
    async () => {
      const dirs = tempDirs();
      cleanup.defer(() => dirs.remove());
      const permissions = ["read", "write", "env", "net", "run", "sys"].map((name) =>
        `--allow-${name}`
      );
      await using child = startChild([process.execPath, "run", ...permissions, BIN, "hooks"], {
        cwd: dirs.workspace,
        env: childEnv(dirs, { BUB_API_KEY: API_KEY }),
      });
      child.end();
      assert.equal(await child.exited(60_000), 0, child.stderr);
      assert.match(child.stdout, /runModelStream: builtin/);
      const warnings = child.stderr.match(/^bub: warning: .*$/gm) ?? [];
      assert.equal(warnings.length, 1, child.stderr);
      assert.match(
        warnings[0]!,
        /^bub: warning: BUB_API_KEY is in this process's start-up environment/,
      );
      assert.match(warnings[0]!, /--allow-ffi/);
      assert.match(warnings[0]!, /config\.yml or \.\/\.env/);
      assert.equal(child.stderr.includes(API_KEY), false);
    },
  );

  test(
    "started through a shell that stays, bub names the shell that still holds the key; through exec it says nothing",
    {
      skip: !linux,
    },
    async () => {
      const dirs = tempDirs();
      cleanup.defer(() => dirs.remove());
      const command = runtimeCommand(BIN, ["hooks"]).map((arg) => `'${arg}'`).join(" ");
      const outcomes: Record<string, string> = {};
      for (const [how, script] of [["stays", `${command}; exit $?`], ["exec", `exec ${command}`]]) {
        await using child = startChild(["/bin/sh", "-c", script!], {
          cwd: dirs.workspace,
          env: childEnv(dirs, { BUB_API_KEY: API_KEY }),
        });
        child.end();
        assert.equal(await child.exited(60_000), 0, child.stderr);
        outcomes[how!] = child.stderr;
      }
      const warning = new RegExp(
        `^bub: warning: BUB_API_KEY is also in the start-up environment of sh \\(pid \\d+\\)`,
        "m",
      );
      assert.match(outcomes.stays!, warning);
      assert.match(outcomes.stays!, /Start bub directly or with exec/);
      assert.equal(outcomes.stays!.includes(API_KEY), false);
      assert.equal(outcomes.exec, "");
    },
  );
});
