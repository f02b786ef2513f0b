/**
 * A test editor for `bub acp`: spawns the real command on the current runtime and connects the
 * official ACP SDK's client app to its stdin/stdout, with a scripted mock model, optional open
 * buffers (`fs/*`) and scripted answers to permission requests.
 */
import { type ChildProcess, spawn } from "node:child_process";
import process from "node:process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { type MockReply, mockReply, type MockRequest } from "../../../src/testing/_mock_reply.ts";
import { BIN, childEnv, runtimeCommand, type TempDirs } from "../../cli/_spawn.ts";

export interface WireMessage {
  role: string;
  content: unknown;
}

/** The scripted model: the user's first word picks the tool it calls, then it answers. */
export function editorModel(request: MockRequest): MockReply {
  const messages = (request.body as { messages: WireMessage[] }).messages;
  const last = messages.at(-1)!;
  const user = [...messages].reverse().find((message) => message.role === "user");
  const prompt = typeof user?.content === "string" ? user.content : JSON.stringify(user?.content);
  const started = /Shell started, shell_id: (bash-\w+)/.exec(String(last.content));
  if (last.role === "tool" && started && prompt.includes("background job")) {
    return mockReply.toolCall("bash_kill", { shell_id: started[1] });
  }
  if (last.role === "tool") return mockReply.text(`done: ${String(last.content).slice(0, 40)}`);
  if (prompt.includes("background job")) {
    return mockReply.toolCall("bash", { command: "echo $$ > bg.pid; sleep 30", background: true });
  }
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
  if (prompt.includes("who runs commands")) {
    return mockReply.toolCall("bash", {
      command: 'echo "run by ${ACP_TEST_EDITOR:-bub}"; echo "call $BUB_TOOL_CALL_ID"; pwd',
    });
  }
  if (prompt.includes("failing command")) {
    return mockReply.toolCall("bash", { command: 'echo "by ${ACP_TEST_EDITOR:-bub}" >&2; exit 3' });
  }
  if (prompt.includes("slow")) {
    return mockReply.toolCall("bash", { command: "echo $$ > slow.pid; sleep 30; touch late" });
  }
  return mockReply.text("plain answer");
}

/** One `bub acp` process with an SDK client connected to it. */
export interface Editor extends AsyncDisposable {
  child: ChildProcess;
  stderr: () => string;
  run<T>(op: (ctx: acp.ClientContext) => Promise<T>): Promise<T>;
  updates: acp.SessionNotification[];
  fs: boolean;
}

/** What a test editor offers: its open buffers, as `fs/*` handlers over a map. */
export interface Buffers {
  files: Map<string, string>;
}

/**
 * A test editor's terminals: `terminal/*` really spawn the command (in its own process group,
 * with `ACP_TEST_EDITOR=editor` added, so its output shows who ran it); `log` records each
 * request (`terminal/create` also records the pid of the process it spawned).
 */
export interface Terminals {
  log: { method: string; terminalId: string; params: Record<string, unknown> }[];
}

interface RunningTerminal {
  child: ChildProcess;
  output: string;
  truncated: boolean;
  limit: number;
  exit: Promise<{ exitCode: number | null; signal: string | null }>;
  status: { exitCode: number | null; signal: string | null } | null;
}

/** Adds `terminal/*` handlers that run commands for real to `client`. */
function serveTerminals(client: acp.ClientApp, terminals: Terminals): void {
  const running = new Map<string, RunningTerminal>();
  let next = 0;
  const known = (id: string) => {
    const terminal = running.get(id);
    if (!terminal) throw acp.RequestError.resourceNotFound(id);
    return terminal;
  };
  const log = (method: string, terminalId: string, params: object) =>
    terminals.log.push({ method, terminalId, params: params as Record<string, unknown> });
  client
    .onRequest(acp.methods.client.terminal.create, ({ params }) => {
      const terminalId = `term-${++next}`;
      const env: Record<string, string | undefined> = { ...process.env, ACP_TEST_EDITOR: "editor" };
      for (const { name, value } of params.env ?? []) env[name] = value;
      const child = spawn(params.command, params.args ?? [], {
        cwd: params.cwd ?? undefined,
        env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
      log("terminal/create", terminalId, { ...params, pid: child.pid });
      const terminal: RunningTerminal = {
        child,
        output: "",
        truncated: false,
        limit: params.outputByteLimit ?? Infinity,
        status: null,
        exit: new Promise((resolve) =>
          child.once("close", (exitCode, signal) => resolve({ exitCode, signal }))
        ),
      };
      void terminal.exit.then((status) => (terminal.status = status));
      const take = (chunk: Buffer) => {
        terminal.output += String(chunk);
        if (terminal.output.length > terminal.limit) {
          terminal.output = terminal.output.slice(-terminal.limit);
          terminal.truncated = true;
        }
      };
      child.stdout!.on("data", take);
      child.stderr!.on("data", take);
      running.set(terminalId, terminal);
      return { terminalId };
    })
    .onRequest(acp.methods.client.terminal.output, ({ params }) => {
      const terminal = known(params.terminalId);
      log("terminal/output", params.terminalId, params);
      const { output, truncated, status } = terminal;
      return { output, truncated, exitStatus: status };
    })
    .onRequest(acp.methods.client.terminal.waitForExit, async ({ params }) => {
      log("terminal/wait_for_exit", params.terminalId, params);
      return await known(params.terminalId).exit;
    })
    .onRequest(acp.methods.client.terminal.kill, ({ params }) => {
      log("terminal/kill", params.terminalId, params);
      killGroup(known(params.terminalId));
      return {};
    })
    .onRequest(acp.methods.client.terminal.release, ({ params }) => {
      log("terminal/release", params.terminalId, params);
      killGroup(known(params.terminalId));
      running.delete(params.terminalId);
      return {};
    });
}

function killGroup(terminal: RunningTerminal): void {
  if (terminal.status !== null) return;
  try {
    process.kill(-terminal.child.pid!, "SIGKILL");
  } catch {
    // already gone
  }
}

/** How a test editor answers permission requests (in order; `null`: cancelled). */
export interface Answers {
  optionIds: (string | null)[];
  asked: acp.RequestPermissionRequest[];
}

export function startEditor(
  dirs: TempDirs,
  env: Record<string, string | undefined>,
  buffers?: Buffers,
  answers?: Answers,
  terminals?: Terminals,
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
  if (terminals) serveTerminals(client, terminals);
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

export async function initialize(
  ctx: acp.ClientContext,
  fs = false,
  terminal = false,
): Promise<acp.InitializeResponse> {
  return await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {
      ...(fs ? { fs: { readTextFile: true, writeTextFile: true } } : {}),
      ...(terminal ? { terminal: true } : {}),
    },
  });
}

/** `session/new` in `cwd`. */
export function newSession(ctx: acp.ClientContext, cwd: string): Promise<acp.NewSessionResponse> {
  return ctx.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
}

/** A text prompt. */
export function say(
  ctx: acp.ClientContext,
  sessionId: string,
  text: string,
): Promise<acp.PromptResponse> {
  return ctx.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text }],
  });
}

/** The kinds of a turn's updates (the slash-command announcement left out). */
export function kinds(updates: acp.SessionNotification[]): string[] {
  return turn(updates).map((notification) => notification.update.sessionUpdate);
}

export function turn(updates: acp.SessionNotification[]): acp.SessionNotification[] {
  return updates.filter((n) => n.update.sessionUpdate !== "available_commands_update");
}
