import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ChannelMessage } from "../../../src/kernel/channel_message.ts";
import type { TurnSnapshot } from "../../../src/kernel/channel.ts";
import { openCli } from "./_fixtures.ts";

function snapshot(isRunning: boolean): TurnSnapshot {
  return {
    sessionId: "cli_session",
    isRunning,
    runningCount: isRunning ? 1 : 0,
    pendingCount: 0,
    steeringCount: 0,
  };
}

function cliMessage(content: string): ChannelMessage {
  return new ChannelMessage({
    sessionId: "cli_session",
    channel: "cli",
    chatId: "cli_chat",
    content,
  });
}

describe("CLI channel REPL (builtin §10.4)", () => {
  test("start prints a welcome panel with the workspace, the model and the ,help hint", async () => {
    await using fx = await openCli();
    const text = fx.text();
    assert.match(text, /Bub/);
    assert.ok(text.includes(fx.workspace), text);
    assert.ok(text.includes("openai:test-model"), text);
    assert.ok(text.includes(",help"), text);
  });

  test("a typed line reaches the handler as a cli ChannelMessage with thread_id context and a lifespan", async () => {
    await using fx = await openCli();
    fx.type("  hello bub  ");
    const [message] = await fx.waitForMessages(1);
    assert.ok(message instanceof ChannelMessage);
    assert.equal(message.content, "hello bub");
    assert.equal(message.channel, "cli");
    assert.equal(message.sessionId, "cli_session");
    assert.equal(message.chatId, "cli_chat");
    assert.deepEqual(message.context, {
      thread_id: "cli_session",
      channel: "$cli",
      chat_id: "cli_chat",
    });
    assert.equal(message.contextStr, "thread_id=cli_session|channel=$cli|chat_id=cli_chat");
    assert.equal(typeof message.lifespan?.[Symbol.asyncDispose], "function");
  });

  test("setMetadata changes the session and chat ids of later messages", async () => {
    await using fx = await openCli();
    fx.cli.setMetadata({ sessionId: "cli:local", chatId: "local" });
    fx.type("hi");
    const [message] = await fx.waitForMessages(1);
    assert.equal(message!.sessionId, "cli:local");
    assert.equal(message!.chatId, "local");
    assert.equal(message!.context.thread_id, "cli:local");
  });

  test("lines are handed over without waiting for the turn, blank lines are ignored", async () => {
    const gates: Array<() => void> = [];
    const seen: string[] = [];
    await using fx = await openCli({
      handler: (message) => {
        seen.push((message as ChannelMessage).content);
        return new Promise((resolve) => gates.push(resolve));
      },
    });
    fx.type("first", "", "   ", "second", ",quit");
    await fx.waitForStop();
    assert.deepEqual(seen, ["first", "second"]);
    for (const open of gates) open();
  });

  test(",quit prints Bye. and aborts the stop controller", async () => {
    await using fx = await openCli();
    fx.type(",quit");
    await fx.waitForStop();
    assert.ok(fx.stop.signal.aborted);
    assert.ok(fx.text().trimEnd().endsWith("Bye."), fx.text());
    assert.equal(fx.messages.length, 0);
  });

  test(",exit and the end of input (Ctrl-D) quit too", async () => {
    await using fx = await openCli();
    fx.type(",exit");
    await fx.waitForStop();
    await using eof = await openCli();
    eof.input.end();
    await eof.waitForStop();
    assert.match(eof.text(), /Bye\.\n$/);
  });

  test("129: shell mode prefixes non-comma input with ','", async () => {
    await using fx = await openCli();
    fx.type(",shell", "ls -la", ",help", ",shell", "plain");
    const messages = await fx.waitForMessages(3);
    assert.deepEqual(messages.map((m) => m.content), [",ls -la", ",help", "plain"]);
    assert.ok(fx.text().includes("Shell mode is now on."));
  });

  test(",thinking toggles the reasoning display", async () => {
    await using fx = await openCli();
    assert.equal(fx.cli.thinkingExpanded, false);
    fx.type(",thinking");
    await fx.waitForOutput("Thinking output is now expanded.");
    assert.equal(fx.cli.thinkingExpanded, true);
    fx.type(",thinking");
    await fx.waitForOutput("Thinking output is now collapsed.");
    assert.equal(fx.messages.length, 0);
  });

  test("128: admission echoes the input and returns steer while a turn runs, null otherwise", async () => {
    await using fx = await openCli();
    const before = fx.text().length;
    assert.equal(
      await fx.cli.admitMessage({
        sessionId: "cli_session",
        message: cliMessage("idle question"),
        turn: snapshot(false),
      }),
      null,
    );
    const steer = await fx.cli.admitMessage({
      sessionId: "cli_session",
      message: cliMessage("also this"),
      turn: snapshot(true),
    });
    assert.deepEqual(steer, { action: "steer", reason: "cli session is already generating" });
    const echoed = fx.text().slice(before).split("\n");
    assert.ok(
      echoed.some((line) => line.includes("idle question") && !line.includes("(steering)")),
    );
    assert.ok(echoed.some((line) => line.includes("also this") && line.includes("(steering)")));
  });

  test("130: the history file is <home>/history/<md5 hex of the workspace>.history and keeps typed lines", async () => {
    await using fx = await openCli();
    const digest = createHash("md5").update(fx.workspace).digest("hex");
    const expected = join(fx.home, "history", `${digest}.history`);
    assert.equal(fx.cli.historyPath, expected);
    fx.type("remember me", ",quit");
    await fx.waitForStop();
    const lines = (await readFile(expected, "utf8")).trimEnd().split("\n");
    assert.deepEqual(lines, ["remember me", ",quit"]);
  });

  test("send shows only error messages, in an Error panel", async () => {
    await using fx = await openCli();
    const before = fx.text().length;
    await fx.cli.send(cliMessage("ordinary outbound"));
    assert.equal(fx.text().length, before);
    const error = cliMessage("An error occurred at stage 'turn': boom");
    error.kind = "error";
    await fx.cli.send(error);
    const shown = fx.text().slice(before);
    assert.match(shown, /── Error ─/);
    assert.ok(shown.includes("An error occurred at stage 'turn': boom"));
    assert.ok(!shown.includes("\x1b["), "a pipe gets no colours or escapes");
  });

  test("Ctrl-C with no turn running prints the hint; a second one within a second quits", async () => {
    let clock = 10_000;
    await using fx = await openCli({ now: () => clock });
    fx.cli.interrupt();
    assert.ok(fx.text().includes("Interrupted. Use ',quit' to exit."));
    assert.equal(fx.stop.signal.aborted, false);
    clock += 1500;
    fx.cli.interrupt();
    assert.equal(fx.stop.signal.aborted, false);
    clock += 500;
    fx.cli.interrupt();
    await fx.waitForStop();
    assert.match(fx.text(), /Bye\.\n$/);
  });

  test("Ctrl-C while a turn runs calls onInterrupt with the session id; the lifespan tracks the turn", async () => {
    const interrupted: string[] = [];
    await using fx = await openCli({
      onInterrupt: (sessionId) => {
        interrupted.push(sessionId);
      },
      tapeInfo: () => Promise.resolve({ entries: 7, anchors: 2, lastAnchor: "phase-1" }),
    });
    fx.type("long task");
    const [message] = await fx.waitForMessages(1);
    const lifespan = message!.lifespan as AsyncDisposable & { enter(): Promise<void> };
    await lifespan.enter();
    assert.equal(fx.cli.generating, true);
    fx.cli.interrupt();
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(interrupted, ["cli_session"]);
    assert.equal(fx.stop.signal.aborted, false);
    await lifespan[Symbol.asyncDispose]();
    assert.equal(fx.cli.generating, false);
    assert.match(
      fx.cli.toolbar(),
      /mode:agent {2}thinking:collapse {2}model:openai:test-model {2}entries:7 anchors:2 last:phase-1$/,
    );
  });
});

describe("CLI channel key bindings on a terminal (builtin §10.4)", () => {
  test("Ctrl-X toggles shell mode and Ctrl-C prints the interrupt hint; Ctrl-D quits", async () => {
    await using fx = await openCli({ terminal: true });
    assert.ok(fx.text().includes("project > "), "agent-mode prompt label");
    fx.input.write("\x18");
    await fx.waitForOutput("project , ");
    assert.equal(fx.cli.shellMode, true);
    fx.input.write("ls\r");
    const [message] = await fx.waitForMessages(1);
    assert.equal(message!.content, ",ls");
    fx.input.write("\x03");
    await fx.waitForOutput("Interrupted. Use ',quit' to exit.");
    assert.equal(fx.stop.signal.aborted, false);
    fx.input.write("\x04");
    await fx.waitForStop();
    assert.ok(fx.text().includes("Bye."));
  });
});
