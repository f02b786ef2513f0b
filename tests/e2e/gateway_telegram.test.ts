/**
 * `bub gateway` as a real subprocess against the fake Telegram Bot API and the mock model: the
 * model answers Telegram users by loading the `telegram` skill and running its script through
 * `bash`, as the skill tells it to. Under the default `sandbox: remote` that command runs in the
 * sandbox, whose one way out is the Bot API the gateway is configured with; the host's NO_PROXY
 * (localhost, 127.0.0.1, as on many CI runners) must not send it around that way.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { probeSandbox } from "../../src/environment/sandbox_probe.ts";
import { FakeTelegramServer } from "../../src/testing/fake_telegram.ts";
import { type MockReply, mockReply, type MockRequest } from "../../src/testing/_mock_reply.ts";
import { MockLlmServer } from "../../src/testing/mock_llm_server.ts";
import {
  BIN,
  type Child,
  childEnv,
  runtimeCommand,
  startChild,
  type TempDirs,
  tempDirs,
} from "../cli/_spawn.ts";

interface WireMessage {
  role: string;
  content: unknown;
}

function text(content: unknown): string {
  return typeof content === "string" ? content : JSON.stringify(content ?? "");
}

/** A 10 000-character answer made of numbered lines. */
const LONG_ANSWER = (() => {
  const lines = Array.from(
    { length: 100 },
    (_, i) => `line ${String(i).padStart(3, "0")} `.padEnd(99, "x"),
  );
  return lines.join("\n") + "!";
})();

/**
 * The scripted model: on a Telegram message it loads the `telegram` skill, then runs the skill's
 * send command (as rendered in the skill body) with the answer, then ends with a short text.
 */
function telegramModel(request: MockRequest): MockReply {
  const messages = (request.body as { messages: WireMessage[] }).messages;
  const last = messages.at(-1)!;
  const user = [...messages].reverse().find((message) => message.role === "user");
  const prompt = text(user?.content);
  const chatId = /chat_id=(-?\d+)/.exec(prompt)?.[1] ?? "0";
  const said = /\\?"message\\?":\s*\\?"([^"\\]*)/.exec(prompt)?.[1] ?? "";
  if (last.role !== "tool") return mockReply.toolCall("skill", { name: "telegram" });
  const result = text(last.content);
  const send = /^(.*\/telegram\.ts) send --token '([^']*)'/m.exec(result);
  if (send) {
    const answer = said === "long" ? LONG_ANSWER : `You said: ${said}`;
    const command = `${send[1]} send --token '${
      send[2]
    }' --chat-id ${chatId} --format plain - <<'MSG'\n${answer}\nMSG`;
    return mockReply.toolCall("bash", { command });
  }
  return mockReply.text(`delivered: ${result.slice(0, 60)}`);
}

describe("bub gateway against the fake Bot API and the mock model", () => {
  let dirs: TempDirs;
  let telegram: FakeTelegramServer;
  let model: MockLlmServer;
  let gateway: Child;
  const allowed = { id: 1001 };

  before(async () => {
    dirs = tempDirs("bub-gateway-test-");
    telegram = await FakeTelegramServer.start();
    model = await MockLlmServer.start({ script: telegramModel });
    gateway = startChild(
      runtimeCommand(BIN, ["gateway", "--enable-channel", "telegram", "--enable-channel", "nope"]),
      {
        cwd: dirs.workspace,
        env: childEnv(dirs, {
          BUB_MODEL: "custom:x",
          BUB_API_BASE: model.url,
          BUB_API_KEY: "sk-gateway",
          BUB_TELEGRAM_TOKEN: telegram.token,
          BUB_TELEGRAM_API_ROOT: telegram.apiRoot,
          BUB_TELEGRAM_ALLOW_USERS: `${allowed.id}`,
          BUB_DEBOUNCE_SECONDS: "0.05",
          BUB_MAX_WAIT_SECONDS: "0.5",
          NO_PROXY: "localhost,127.0.0.1",
          no_proxy: "localhost,127.0.0.1",
        }),
      },
    );
    await gateway.waitFor("serving telegram");
    await telegram.waitForCalls("getUpdates");
  });

  after(async () => {
    if (gateway && gateway.process.exitCode === null) gateway.process.kill("SIGTERM");
    await gateway?.exited(10_000).catch(() => gateway.kill());
    await model?.close();
    await telegram?.close();
    dirs?.remove();
  });

  function sentTo(chatId: number): string[] {
    return telegram.callsOf("sendMessage")
      .filter((call) => Number(call.params.chat_id) === chatId)
      .map((call) => String(call.params.text));
  }

  async function answerOf(chatId: number, needle: string): Promise<void> {
    await telegram.waitForCalls("sendMessage", 1, {
      where: (call) =>
        Number(call.params.chat_id) === chatId && String(call.params.text).includes(needle),
      timeoutMs: 20_000,
    });
  }

  test("an unknown channel name next to a known one is reported and the known channel is served", () => {
    assert.match(gateway.stderr, /Unknown channel "nope"/);
    assert.match(gateway.stdout, /^bub gateway: serving telegram$/m);
  });

  test("an allowlisted user gets the model's answer, sent through the telegram skill script", async () => {
    telegram.pushText("hello bub");
    await answerOf(allowed.id, "You said: hello bub");
    const first = model.requests[0]!.body as { messages: WireMessage[] };
    assert.match(
      text(first.messages.findLast((m) => m.role === "user")?.content),
      /channel=\$telegram/,
    );
    const system = text(first.messages.find((m) => m.role === "system")?.content);
    assert.match(system, /telegram/);
    // Sandboxed by default (sandbox: remote), its network limited to the Bot API's host:port
    // (where bwrap cannot run, Bub warns and the session runs unsandboxed).
    if ((await probeSandbox()).ok) {
      assert.match(system, /<sandbox>/);
      assert.ok(system.includes(`limited to ${new URL(telegram.apiRoot).host},`), system);
    }
  });

  test("a stranger gets 'Access denied.' and the model is never called for them", async () => {
    const before = model.requests.length;
    const stranger = telegram.makeUser(2002, "mallory");
    telegram.pushText("let me in", { from: stranger });
    await answerOf(stranger.id, "Access denied.");
    // A later allowed message is answered, so the stranger's update was fully handled by then.
    telegram.pushText("after the stranger");
    await answerOf(allowed.id, "You said: after the stranger");
    const asked = model.requests.slice(before).map((request) => JSON.stringify(request.body));
    assert.ok(asked.length > 0);
    assert.ok(asked.every((body) => !body.includes("let me in") && !body.includes("mallory")));
    assert.deepEqual(sentTo(stranger.id), ["Access denied."]);
  });

  test("a 10 000-character answer arrives split into messages of at most 4096 characters, in order", async () => {
    assert.equal(LONG_ANSWER.length, 10_000);
    const before = sentTo(allowed.id).length;
    telegram.pushText("long");
    await answerOf(allowed.id, "!");
    const pieces = sentTo(allowed.id).slice(before);
    assert.ok(pieces.length >= 3, `expected at least 3 messages, got ${pieces.length}`);
    for (const piece of pieces) {
      assert.ok(piece.length <= 4096, `a message has ${piece.length} characters`);
    }
    assert.equal(pieces.join("").replace(/\s+/g, ""), LONG_ANSWER.replace(/\s+/g, ""));
  });

  test("updates with missing fields do not stop the gateway: a later message still gets its answer", async () => {
    telegram.pushUpdate({});
    telegram.pushUpdate({ message: null });
    telegram.pushUpdate({ message: { text: "no chat, no id" } });
    telegram.pushUpdate({ message: { message_id: 99, text: "no chat" } });
    telegram.pushUpdate({
      message: { message_id: 100, chat: { type: "private" }, text: "chat without id" },
    });
    telegram.pushUpdate({
      message: { message_id: 101, chat: telegram.privateChat(), text: "no sender" },
    });
    telegram.pushUpdate({ edited_message: { message_id: 102, text: "edited" } });
    telegram.pushText("still there?");
    await answerOf(allowed.id, "You said: still there?");
    assert.equal(gateway.process.exitCode, null);
    const asked = model.requests.map((request) => JSON.stringify(request.body));
    assert.ok(
      asked.every((body) => !body.includes("no sender") && !body.includes("chat without id")),
    );
  });

  test("SIGTERM stops the gateway cleanly with exit code 0", async () => {
    // Signalled by pid: Deno's ChildProcess reports any child it kill()ed as killed by the signal.
    process.kill(gateway.process.pid!, "SIGTERM");
    assert.equal(await gateway.exited(10_000), 0);
  });
});
