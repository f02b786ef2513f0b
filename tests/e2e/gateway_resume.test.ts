/**
 * Resume at start through real processes: `bub gateway` against the fake Bot API is SIGKILLed
 * while a Telegram message's tool runs; a new `bub gateway` resumes that turn as it starts (the
 * model is told the call was interrupted, the tool does not run again) and the chat gets the
 * answer exactly once, without the user sending anything new. A test plugin sends each turn's
 * model output to its chat (in a real deployment the model does, through the `telegram` skill).
 * With the file store and SQLite.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { FakeTelegramServer } from "../../src/testing/fake_telegram.ts";
import { type MockReply, mockReply, type MockRequest } from "../../src/testing/_mock_reply.ts";
import { MockLlmServer } from "../../src/testing/mock_llm_server.ts";
import {
  BIN,
  childEnv,
  cleanupStack,
  runtimeCommand,
  startChild,
  type TempDirs,
  tempDirs,
} from "../cli/_spawn.ts";

const HERE = import.meta.dirname ?? ".";
const PLUGINS = [
  resolve(HERE, "_cluster_reply_plugin.ts"),
  resolve(HERE, "_resume_tools_plugin.ts"),
];

const STORES = [
  { name: "file", value: () => "file" },
  { name: "SQLite", value: (dirs: TempDirs) => `sqlite:${join(dirs.bubHome, "t.db")}` },
];

/** Resolves once `path` holds a line (the tool runs). */
async function lineWritten(path: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path) || !readFileSync(path, "utf8").includes("\n")) {
    if (Date.now() > deadline) throw new Error(`no line in ${path} after ${timeoutMs} ms`);
    await sleep(50);
  }
}

function messagesOf(request: MockRequest): { role: string; content: unknown }[] {
  return (request.body as { messages: { role: string; content: unknown }[] }).messages;
}

describe("bub gateway resumes an interrupted turn at start", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  for (const store of STORES) {
    test(`${store.name} store: a gateway SIGKILLed during a tool is restarted and the Telegram chat gets the resumed answer exactly once`, async () => {
      const dirs = tempDirs("bub-gateway-resume-");
      const calls = join(dirs.workspace, "calls.txt");
      const telegram = await FakeTelegramServer.start();
      const model = await MockLlmServer.start({
        script: (request: MockRequest): MockReply =>
          messagesOf(request).at(-1)?.role === "tool"
            ? mockReply.text("Recovered answer.")
            : mockReply.toolCall("append_once", { path: calls }, { id: "call_1" }),
      });
      cleanup.defer(async () => {
        await model.close();
        await telegram.close();
        dirs.remove();
      });
      dirs.writeConfig(`plugins:\n${PLUGINS.map((p) => `  - ${JSON.stringify(p)}\n`).join("")}`);
      const env = childEnv(dirs, {
        BUB_MODEL: "custom:x",
        BUB_API_BASE: model.url,
        BUB_API_KEY: "sk-gateway",
        BUB_TAPE_STORE: store.value(dirs),
        BUB_TELEGRAM_TOKEN: telegram.token,
        BUB_TELEGRAM_API_ROOT: telegram.apiRoot,
        BUB_TELEGRAM_ALLOW_USERS: String(telegram.user.id),
        BUB_DEBOUNCE_SECONDS: "0.05",
        BUB_MAX_WAIT_SECONDS: "0.5",
        NO_PROXY: "localhost,127.0.0.1",
        no_proxy: "localhost,127.0.0.1",
      });
      const start = () => {
        const child = startChild(
          runtimeCommand(BIN, ["gateway", "--enable-channel", "telegram"]),
          { cwd: dirs.workspace, env },
        );
        cleanup.defer(() => child[Symbol.asyncDispose]());
        return child;
      };
      const first = start();
      await first.waitFor("serving telegram", { timeoutMs: 60_000 });
      await telegram.waitForCalls("getUpdates");
      telegram.pushText("write the file");
      await lineWritten(calls, 20_000).catch((error) => {
        throw new Error(
          `${error.message}; model requests: ${model.requests.length}; ` +
            `telegram: ${telegram.calls.map((c) => c.method).join(",")}; stderr: ${first.stderr}`,
        );
      });
      first.kill();
      await first.exited(10_000);
      assert.equal(model.requests.length, 1);
      const recovered = (text: string) => text.includes("Recovered answer.");
      const sent = () =>
        telegram.callsOf("sendMessage").filter((call) => recovered(String(call.params.text)));
      assert.equal(sent().length, 0);

      const second = start();
      await second.waitFor("serving telegram", { timeoutMs: 60_000 });
      await telegram.waitForCalls("sendMessage", 1, {
        where: (call) => recovered(String(call.params.text)),
        timeoutMs: 30_000,
      }).catch((error) => {
        throw new Error(
          `${error.message}; model requests: ${model.requests.length}; stderr: ${second.stderr}; ` +
            `out: ${second.stdout}; tapes: ${
              existsSync(join(dirs.bubHome, "tapes"))
                ? readdirSync(join(dirs.bubHome, "tapes")).join(",")
                : "-"
            }`,
        );
      });
      // Give a second delivery (or a re-run of the message) the time to show up.
      await sleep(1500);
      assert.equal(sent().length, 1, JSON.stringify(sent().map((call) => call.params)));
      assert.equal(Number(sent()[0]!.params.chat_id), telegram.privateChat().id);
      assert.equal(readFileSync(calls, "utf8"), "call_1\n");
      assert.equal(model.requests.length, 2);
      const tool = messagesOf(model.requests[1]!).filter((message) => message.role === "tool");
      assert.equal(tool.length, 1);
      assert.match(JSON.stringify(tool[0]!.content), /interrupted: unknown whether it took effect/);
      second.process.kill("SIGTERM");
      await second.exited(10_000);
    });
  }
});
