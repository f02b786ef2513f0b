/**
 * `bub acp` as an editor runs it: a real subprocess on stdin/stdout, driven by the official ACP
 * SDK's client app, against the mock model server. Each test names the protocol behaviour.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { type MockReply, mockReply, type MockRequest } from "../../../src/testing/_mock_reply.ts";
import { MockLlmServer } from "../../../src/testing/mock_llm_server.ts";
import {
  BIN,
  childEnv,
  runCli,
  runtimeCommand,
  type TempDirs,
  tempDirs,
} from "../../cli/_spawn.ts";

interface WireMessage {
  role: string;
  content: unknown;
}

/** The scripted model: the user's first word picks the tool it calls, then it answers. */
function editorModel(request: MockRequest): MockReply {
  const messages = (request.body as { messages: WireMessage[] }).messages;
  const last = messages.at(-1)!;
  const user = [...messages].reverse().find((message) => message.role === "user");
  const prompt = typeof user?.content === "string" ? user.content : JSON.stringify(user?.content);
  if (last.role === "tool") return mockReply.text(`done: ${String(last.content).slice(0, 40)}`);
  if (prompt.includes("write into the editor")) {
    return mockReply.toolCall("fs_write", {
      path: "editor.txt",
      content: "from bub to the editor\n",
    });
  }
  if (prompt.includes("write")) {
    return mockReply.toolCall("fs_write", { path: "hello.txt", content: "hi from bub\n" });
  }
  if (prompt.includes("make a plan")) {
    return mockReply.toolCall("plan_update", {
      entries: [
        { content: "read the code", status: "completed", priority: "high" },
        { content: "write the fix", status: "in_progress" },
      ],
    });
  }
  if (prompt.includes("read the buffer")) {
    return mockReply.toolCall("fs_read", { path: "buffer.txt" });
  }
  if (prompt.includes("guarded")) {
    return mockReply.toolCall("bash", { command: "echo ran >> guarded.txt" });
  }
  if (prompt.includes("slow")) {
    return mockReply.toolCall("bash", { command: "echo $$ > slow.pid; sleep 30; touch late" });
  }
  return mockReply.text("plain answer");
}

/** One `bub acp` process with an SDK client connected to it. */
interface Editor extends AsyncDisposable {
  child: ChildProcess;
  stderr: () => string;
  run<T>(op: (ctx: acp.ClientContext) => Promise<T>): Promise<T>;
  updates: acp.SessionNotification[];
  fs: boolean;
}

/** What a test editor offers: its open buffers, as `fs/*` handlers over a map. */
interface Buffers {
  files: Map<string, string>;
}

/** How a test editor answers permission requests (in order; `null`: cancelled). */
interface Answers {
  optionIds: (string | null)[];
  asked: acp.RequestPermissionRequest[];
}

function startEditor(
  dirs: TempDirs,
  env: Record<string, string | undefined>,
  buffers?: Buffers,
  answers?: Answers,
): Editor {
  const [file, ...args] = runtimeCommand(BIN, ["acp"]);
  const child = spawn(file!, args, {
    cwd: dirs.workspace,
    env: childEnv(dirs, env),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += String(chunk)));
  const updates: acp.SessionNotification[] = [];
  const client = acp.client({ name: "test-editor" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
    });
  if (answers) {
    client.onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      answers.asked.push(params);
      const optionId = answers.optionIds.shift() ?? null;
      return optionId === null
        ? { outcome: { outcome: "cancelled" } }
        : { outcome: { outcome: "selected", optionId } };
    });
  }
  if (buffers) {
    client
      .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
        const content = buffers.files.get(params.path);
        if (content === undefined) throw acp.RequestError.resourceNotFound(params.path);
        return { content };
      })
      .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
        buffers.files.set(params.path, params.content);
        return {};
      });
  }
  const stream = acp.ndJsonStream(
    Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout!) as unknown as ReadableStream<Uint8Array>,
  );
  return {
    child,
    stderr: () => stderr,
    updates,
    run: (op) => client.connectWith(stream, op),
    fs: buffers !== undefined,
    async [Symbol.asyncDispose]() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
    },
  };
}

async function initialize(
  ctx: acp.ClientContext,
  fs = false,
): Promise<acp.InitializeResponse> {
  return await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: fs ? { fs: { readTextFile: true, writeTextFile: true } } : {},
  });
}

/** The kinds of a turn's updates (the slash-command announcement left out). */
function kinds(updates: acp.SessionNotification[]): string[] {
  return turn(updates).map((notification) => notification.update.sessionUpdate);
}

function turn(updates: acp.SessionNotification[]): acp.SessionNotification[] {
  return updates.filter((n) => n.update.sessionUpdate !== "available_commands_update");
}

describe("bub acp, driven by the ACP SDK's client", () => {
  let dirs: TempDirs;
  let model: MockLlmServer;
  let env: Record<string, string>;

  before(async () => {
    dirs = tempDirs("bub-acp-test-");
    model = await MockLlmServer.start({ script: editorModel });
    env = { BUB_MODEL: "custom:x", BUB_API_BASE: model.url, BUB_API_KEY: "sk-editor" };
  });

  after(async () => {
    await model?.close();
    dirs?.remove();
  });

  test("initialize, session/new, a prompt with a file write: tool_call, diff, answer, end_turn", async () => {
    await using editor = startEditor(dirs, env);
    const { init, sessionId, response } = await editor.run(async (ctx) => {
      const init = await initialize(ctx);
      const { sessionId } = await ctx.request(acp.methods.agent.session.new, {
        cwd: dirs.workspace,
        mcpServers: [],
      });
      const response = await ctx.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "please write the file" }],
      });
      return { init, sessionId, response };
    });
    assert.equal(init.protocolVersion, acp.PROTOCOL_VERSION);
    assert.equal(init.agentCapabilities?.loadSession, true);
    assert.deepEqual(init.authMethods, []);
    assert.match(sessionId, /^acp:[0-9a-f-]{36}$/);
    assert.equal(response.stopReason, "end_turn");
    assert.deepEqual(kinds(editor.updates), [
      "tool_call",
      "tool_call_update",
      "agent_message_chunk",
    ]);
    const [call, end, chunk] = turn(editor.updates).map((notification) =>
      notification.update
    ) as unknown as [
      Record<string, unknown>,
      Record<string, unknown>,
      Record<string, unknown>,
    ];
    const path = join(dirs.workspace, "hello.txt");
    assert.equal(call.kind, "edit");
    assert.deepEqual(call.locations, [{ path }]);
    assert.deepEqual(call.rawInput, { path: "hello.txt", content: "hi from bub\n" });
    assert.equal(end.toolCallId, call.toolCallId);
    assert.equal(end.status, "completed");
    assert.deepEqual(end.content, [{
      type: "diff",
      path,
      oldText: null,
      newText: "hi from bub\n",
    }]);
    assert.match(String((chunk.content as { text: string }).text), /^done: /);
    assert.equal(readFileSync(path, "utf8"), "hi from bub\n");
    assert.ok(editor.updates.every((notification) => notification.sessionId === sessionId));
  });

  test("an editor offering its file system: fs tools read its unsaved buffer and write into it, not to disk", async () => {
    const files = new Map([[join(dirs.workspace, "buffer.txt"), "unsaved editor text"]]);
    await using editor = startEditor(dirs, env, { files });
    const before = model.requests.length;
    await editor.run(async (ctx) => {
      await initialize(ctx, true);
      const { sessionId } = await ctx.request(acp.methods.agent.session.new, {
        cwd: dirs.workspace,
        mcpServers: [],
      });
      for (const text of ["read the buffer", "write into the editor"]) {
        const response = await ctx.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text }],
        });
        assert.equal(response.stopReason, "end_turn");
      }
    });
    const toolResults = model.requests.slice(before).flatMap((request) =>
      (request.body as { messages: WireMessage[] }).messages.filter((m) => m.role === "tool")
    );
    assert.ok(
      toolResults.some((message) => String(message.content).includes("unsaved editor text")),
      JSON.stringify(toolResults),
    );
    const written = join(dirs.workspace, "editor.txt");
    assert.equal(files.get(written), "from bub to the editor\n");
    assert.equal(existsSync(written), false, "the write went to disk, not to the editor");
  });

  test("config options: model and reasoning effort offered, switched through ,model (on the tape), used by the next prompt", async () => {
    const fallbackEnv = { ...env, BUB_FALLBACK_MODELS: '["custom:y"]' };
    await using editor = startEditor(dirs, fallbackEnv);
    const before = model.requests.length;
    const { created, switched, refused } = await editor.run(async (ctx) => {
      await initialize(ctx);
      const created = await ctx.request(acp.methods.agent.session.new, {
        cwd: dirs.workspace,
        mcpServers: [],
      });
      const switched = await ctx.request(acp.methods.agent.session.setConfigOption, {
        sessionId: created.sessionId,
        configId: "model",
        value: "custom:y",
      });
      const refused = await ctx.request(acp.methods.agent.session.setConfigOption, {
        sessionId: created.sessionId,
        configId: "model",
        value: "custom:not-offered",
      }).then(() => null, (error: acp.RequestError) => error);
      await ctx.request(acp.methods.agent.session.prompt, {
        sessionId: created.sessionId,
        prompt: [{ type: "text", text: "hello" }],
      });
      return { created, switched, refused };
    });
    const modelOption = (options: unknown) =>
      (options as { id: string; currentValue: string; options: { value: string }[] }[])
        .find((option) => option.id === "model")!;
    assert.equal(modelOption(created.configOptions).currentValue, "custom:x");
    assert.deepEqual(modelOption(created.configOptions).options.map((o) => o.value), [
      "custom:x",
      "custom:y",
    ]);
    assert.equal(modelOption(switched.configOptions).currentValue, "custom:y");
    assert.equal(refused?.code, -32602);
    assert.match(String(refused?.message), /custom:x, custom:y/);
    const sent = model.requests.slice(before).map((r) => (r.body as { model: string }).model);
    assert.deepEqual(sent, ["y"]);
  });

  test("slash commands: announced after session/new, /tape.info runs ,tape.info without a model call", async () => {
    await using editor = startEditor(dirs, env);
    const before = model.requests.length;
    const response = await editor.run(async (ctx) => {
      await initialize(ctx);
      const { sessionId } = await ctx.request(acp.methods.agent.session.new, {
        cwd: dirs.workspace,
        mcpServers: [],
      });
      return await ctx.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "/tape.info" }],
      });
    });
    assert.equal(response.stopReason, "end_turn");
    assert.equal(model.requests.length, before);
    const commands = editor.updates.find((n) =>
      n.update.sessionUpdate === "available_commands_update"
    )
      ?.update as { availableCommands: { name: string }[] } | undefined;
    assert.ok(commands?.availableCommands.some((command) => command.name === "tape.info"));
    const text = editor.updates
      .filter((n) => n.update.sessionUpdate === "agent_message_chunk")
      .map((n) => (n.update as { content: { text: string } }).content.text)
      .join("");
    assert.match(text, /entries/);
  });

  test("an image in the prompt reaches the model as an image part beside the text", async () => {
    await using editor = startEditor(dirs, env);
    const before = model.requests.length;
    const png =
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    await editor.run(async (ctx) => {
      const init = await initialize(ctx);
      assert.equal(init.agentCapabilities?.promptCapabilities?.image, true);
      const { sessionId } = await ctx.request(acp.methods.agent.session.new, {
        cwd: dirs.workspace,
        mcpServers: [],
      });
      await ctx.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [
          { type: "text", text: "what is in this picture" },
          { type: "image", mimeType: "image/png", data: png },
        ],
      });
    });
    const [request] = model.requests.slice(before);
    const user = (request!.body as { messages: WireMessage[] }).messages.at(-1)!;
    assert.ok(Array.isArray(user.content), JSON.stringify(user.content));
    const parts = user.content as { type: string; text?: string; image_url?: { url: string } }[];
    assert.match(String(parts[0]?.text), /what is in this picture/);
    assert.equal(parts[1]?.image_url?.url, `data:image/png;base64,${png}`);
  });

  test("the model's plan.update call shows as a plan, live and when the session is loaded again", async () => {
    const expected = [
      { content: "read the code", status: "completed", priority: "high" },
      { content: "write the fix", status: "in_progress", priority: "medium" },
    ];
    let sessionId = "";
    {
      await using editor = startEditor(dirs, env);
      await editor.run(async (ctx) => {
        await initialize(ctx);
        ({ sessionId } = await ctx.request(acp.methods.agent.session.new, {
          cwd: dirs.workspace,
          mcpServers: [],
        }));
        await ctx.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text: "make a plan" }],
        });
      });
      const plan = turn(editor.updates)[0]?.update as { sessionUpdate: string; entries: unknown };
      assert.equal(plan.sessionUpdate, "plan");
      assert.deepEqual(plan.entries, expected);
      assert.equal((turn(editor.updates)[1]?.update as { kind?: string }).kind, "think");
    }
    await using again = startEditor(dirs, env);
    await again.run(async (ctx) => {
      await initialize(ctx);
      await ctx.request(acp.methods.agent.session.load, {
        sessionId,
        cwd: dirs.workspace,
        mcpServers: [],
      });
    });
    const replayed = turn(again.updates).find((n) => n.update.sessionUpdate === "plan");
    assert.deepEqual((replayed?.update as { entries: unknown }).entries, expected);
  });

  test("permissions are approvals: allow once runs the held call once, reject gives the model the denial", async () => {
    const guarded = { ...env, BUB_APPROVALS: '[{"tool":"bash","reason":"runs commands"}]' };
    const file = join(dirs.workspace, "guarded.txt");
    rmSync(file, { force: true });
    const answers: Answers = { optionIds: ["allow_once", "reject_once"], asked: [] };
    await using editor = startEditor(dirs, guarded, undefined, answers);
    const before = model.requests.length;
    const stops = await editor.run(async (ctx) => {
      await initialize(ctx);
      const { sessionId } = await ctx.request(acp.methods.agent.session.new, {
        cwd: dirs.workspace,
        mcpServers: [],
      });
      const stops: string[] = [];
      for (const text of ["run the guarded thing", "run the guarded thing again"]) {
        const response = await ctx.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text }],
        });
        stops.push(response.stopReason);
      }
      return stops;
    });
    assert.deepEqual(stops, ["end_turn", "end_turn"]);
    assert.equal(answers.asked.length, 2);
    const call = answers.asked[0]!.toolCall as {
      title?: string;
      kind?: string;
      rawInput?: unknown;
    };
    assert.equal(call.title, "bash: echo ran >> guarded.txt (runs commands)");
    assert.equal(call.kind, "execute");
    assert.deepEqual(answers.asked[0]!.options.map((o) => o.kind), [
      "allow_once",
      "allow_always",
      "reject_once",
    ]);
    assert.equal(readFileSync(file, "utf8"), "ran\n", "allowed once: ran exactly once");
    const toolResults = model.requests.slice(before).flatMap((request) =>
      (request.body as { messages: WireMessage[] }).messages.filter((m) => m.role === "tool")
    ).map((message) => String(message.content));
    assert.ok(
      toolResults.some((text) => /denied by human: rejected in the editor/.test(text)),
      JSON.stringify(toolResults),
    );
  });

  test("ask mode holds every tool; allow always is sticky; an unanswered request stays pending for another channel", async () => {
    const file = join(dirs.workspace, "guarded.txt");
    rmSync(file, { force: true });
    const answers: Answers = { optionIds: ["allow_always", null], asked: [] };
    let sessionId = "";
    {
      await using editor = startEditor(dirs, env, undefined, answers);
      await editor.run(async (ctx) => {
        await initialize(ctx);
        const created = await ctx.request(acp.methods.agent.session.new, {
          cwd: dirs.workspace,
          mcpServers: [],
        });
        sessionId = created.sessionId;
        assert.deepEqual(created.modes?.availableModes.map((m) => m.id), ["default", "ask"]);
        await ctx.request(acp.methods.agent.session.setMode, { sessionId, modeId: "ask" });
        for (const text of ["run the guarded thing", "run the guarded thing twice"]) {
          await ctx.request(acp.methods.agent.session.prompt, {
            sessionId,
            prompt: [{ type: "text", text }],
          });
        }
        // A write is another tool: it asks again, and the editor does not answer.
        const response = await ctx.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text: "please write the file" }],
        });
        assert.equal(response.stopReason, "end_turn");
      });
    }
    assert.equal(answers.asked.length, 2, "always: the second bash call did not ask");
    assert.equal(readFileSync(file, "utf8"), "ran\nran\n");
    const held = answers.asked[1]!.toolCall as { rawInput?: { path?: string } };
    assert.equal(held.rawInput?.path, "hello.txt");
    const listed = await runCli(dirs, ["run", "--session-id", sessionId, ",approvals"], { env });
    const id = /\b([a-z2-7]{10})\b/.exec(listed.stdout)?.[1];
    assert.ok(id, listed.stdout);
    rmSync(join(dirs.workspace, "hello.txt"), { force: true });
    const approved = await runCli(dirs, ["run", "--session-id", sessionId, `,approve ${id}`], {
      env,
    });
    assert.equal(approved.code, 0, approved.stderr);
    assert.equal(readFileSync(join(dirs.workspace, "hello.txt"), "utf8"), "hi from bub\n");
  });

  test("session/cancel mid-tool: stopReason cancelled and the tool's process is gone", async () => {
    await using editor = startEditor(dirs, env);
    const pidFile = join(dirs.workspace, "slow.pid");
    const response = await editor.run(async (ctx) => {
      await initialize(ctx);
      const { sessionId } = await ctx.request(acp.methods.agent.session.new, {
        cwd: dirs.workspace,
        mcpServers: [],
      });
      const prompt = ctx.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "something slow" }],
      });
      while (!existsSync(pidFile) || readFileSync(pidFile, "utf8").trim() === "") {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
      return await prompt;
    });
    assert.equal(response.stopReason, "cancelled");
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    let alive = true;
    for (let i = 0; i < 200 && alive; i++) {
      try {
        process.kill(pid, 0);
        await new Promise((resolve) => setTimeout(resolve, 25));
      } catch {
        alive = false;
      }
    }
    assert.equal(alive, false, `the bash process ${pid} still runs after the cancel`);
    assert.equal(existsSync(join(dirs.workspace, "late")), false);
    assert.equal(kinds(editor.updates)[0], "tool_call");
  });

  test("session/list and session/load after a restart: a Telegram session's history with its tool calls", async () => {
    // A conversation in another channel: session telegram:42 of the same workspace.
    const run = await runCli(
      dirs,
      ["run", "--channel", "telegram", "--chat-id", "42", "write it"],
      {
        env,
      },
    );
    assert.equal(run.code, 0, run.stderr);
    await using editor = startEditor(dirs, env);
    const { sessions } = await editor.run(async (ctx) => {
      await initialize(ctx);
      const { sessions } = await ctx.request(acp.methods.agent.session.list, {});
      const telegram = sessions.find((session) => session.sessionId === "telegram:42");
      assert.ok(telegram, `telegram:42 not listed: ${JSON.stringify(sessions)}`);
      await ctx.request(acp.methods.agent.session.load, {
        sessionId: "telegram:42",
        cwd: dirs.workspace,
        mcpServers: [],
      });
      return { sessions };
    });
    const telegram = sessions.find((session) => session.sessionId === "telegram:42")!;
    assert.equal(telegram.title, "write it");
    assert.equal(telegram.cwd, dirs.workspace);
    assert.ok(telegram.updatedAt);
    assert.deepEqual(kinds(editor.updates), [
      "user_message_chunk",
      "tool_call",
      "tool_call_update",
      "agent_message_chunk",
    ]);
    const [user, call, end] = turn(editor.updates).map((notification) =>
      notification.update
    ) as unknown as [
      Record<string, unknown>,
      Record<string, unknown>,
      Record<string, unknown>,
    ];
    assert.deepEqual(user.content, { type: "text", text: "write it" });
    assert.equal(call.title, `fs.write ${join(dirs.workspace, "hello.txt")}`);
    assert.equal(end.status, "completed");
  });

  test("session/resume continues a session without replay (the model sees its history); session/close forgets it", async () => {
    let sessionId = "";
    {
      await using first = startEditor(dirs, env);
      await first.run(async (ctx) => {
        await initialize(ctx);
        ({ sessionId } = await ctx.request(acp.methods.agent.session.new, {
          cwd: dirs.workspace,
          mcpServers: [],
        }));
        await ctx.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text: "remember the word kumquat" }],
        });
      });
    }
    await using again = startEditor(dirs, env);
    const before = model.requests.length;
    const refused = await again.run(async (ctx) => {
      await initialize(ctx);
      await ctx.request(acp.methods.agent.session.resume, { sessionId, cwd: dirs.workspace });
      await ctx.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "which word?" }],
      });
      await ctx.request(acp.methods.agent.session.close, { sessionId });
      return await ctx.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "still there?" }],
      }).then(() => null, (error: acp.RequestError) => error);
    });
    assert.deepEqual(kinds(again.updates), ["agent_message_chunk"], "resume replays nothing");
    const sent = JSON.stringify((model.requests[before]!.body as { messages: unknown }).messages);
    assert.match(sent, /kumquat/);
    assert.equal(refused?.code, -32602);
  });

  test("unknown sessions, unknown methods and malformed lines get JSON-RPC errors; the server stays up", async () => {
    await using editor = startEditor(dirs, env);
    await editor.run(async (ctx) => {
      await initialize(ctx);
      await assert.rejects(
        ctx.request(acp.methods.agent.session.prompt, {
          sessionId: "acp:nope",
          prompt: [{ type: "text", text: "hi" }],
        }),
        (error: acp.RequestError) => error.code === -32602 && /Unknown session/.test(error.message),
      );
      await assert.rejects(
        ctx.request(acp.methods.agent.session.load, {
          sessionId: "acp:never-seen",
          cwd: dirs.workspace,
          mcpServers: [],
        }),
        (error: acp.RequestError) => error.code === -32002,
      );
      await assert.rejects(
        ctx.request("bub/not-a-method", {}),
        (error: acp.RequestError) => error.code === -32601,
      );
    });
  });

  test("malformed JSON on stdin: a parse error, then the next request is answered", async () => {
    const [file, ...args] = runtimeCommand(BIN, ["acp"]);
    const child = spawn(file!, args, { cwd: dirs.workspace, env: childEnv(dirs, env) });
    let stdout = "";
    child.stdout.on("data", (chunk) => (stdout += String(chunk)));
    child.stdin.write("{not json\n");
    child.stdin.write(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "initialize",
        params: { protocolVersion: 1 },
      }) +
        "\n",
    );
    while (!stdout.includes('"id":7')) await new Promise((resolve) => setTimeout(resolve, 25));
    child.stdin.end();
    await new Promise((resolve) => child.once("exit", resolve));
    const lines = stdout.trim().split("\n").map((line) => JSON.parse(line));
    assert.equal(lines.find((line) => line.id === null)?.error?.code, -32700);
    assert.equal(lines.find((line) => line.id === 7)?.result?.protocolVersion, 1);
  });

  test("no model configured: initialize offers one auth method saying how; a prompt is refused", async () => {
    await using editor = startEditor(dirs, { BUB_MODEL: "", BUB_API_KEY: "", BUB_API_BASE: "" });
    const { init, error } = await editor.run(async (ctx) => {
      const init = await initialize(ctx);
      const { sessionId } = await ctx.request(acp.methods.agent.session.new, {
        cwd: dirs.workspace,
        mcpServers: [],
      });
      const error = await ctx.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "hi" }],
      }).then(() => null, (error: acp.RequestError) => error);
      return { init, error };
    });
    assert.equal(init.authMethods?.length, 1);
    assert.ok((init.authMethods?.[0] as { description?: string }).description);
    assert.equal(error?.code, -32000);
  });
});
