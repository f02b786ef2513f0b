/**
 * A cluster takeover in the middle of a tool, end to end: two real `bub gateway` instances over
 * one PostgreSQL database and the fake Bot API. Instance A runs a Telegram turn whose step calls
 * two tools at once, one that appends its call id to a file and sleeps, one that appends and
 * ends; A is SIGKILLed while the first still sleeps. Instance B takes the session over when A's
 * lease expires, adopts A's fork (`cluster.turn_interrupted` for the message,
 * `turn.interrupted` → `turn.resumed` for the fork) and resumes the turn: the
 * completed call keeps its result, the running one is reported "interrupted: unknown whether it
 * took effect" (a tool declared idempotent runs again once with the same call id), the model is
 * asked once more, and the chat gets the answer once.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { connectPg } from "../../src/tape/postgres/_client.ts";
import { PostgresTapeStore } from "../../src/tape/postgres_store.ts";
import { FakeTelegramServer } from "../../src/testing/fake_telegram.ts";
import { type MockReply, mockReply, type MockRequest } from "../../src/testing/_mock_reply.ts";
import { MockLlmServer } from "../../src/testing/mock_llm_server.ts";
import {
  BIN,
  type Child,
  childEnv,
  cleanupStack,
  runtimeCommand,
  startChild,
  tempDirs,
} from "../cli/_spawn.ts";
import { postgresUrl } from "../tape/_postgres.ts";
import { freshDatabase } from "./_cluster_harness.ts";

const PLUGINS = [
  resolve(import.meta.dirname ?? ".", "_cluster_reply_plugin.ts"),
  resolve(import.meta.dirname ?? ".", "_resume_tools_plugin.ts"),
];
const LEASE_SECONDS = 2;

function messagesOf(request: MockRequest): { role: string; content: unknown }[] {
  return (request.body as { messages: { role: string; content: unknown }[] }).messages;
}

/** Resolves once `path` holds `count` lines. */
async function lines(path: string, count: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path) || readFileSync(path, "utf8").split("\n").length <= count) {
    if (Date.now() > deadline) throw new Error(`fewer than ${count} lines in ${path}`);
    await sleep(50);
  }
}

describe("a cluster instance takes over a turn whose tool was running", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());
  const pg = postgresUrl("cluster takeover with tools");

  for (const idempotent of [false, true]) {
    const what = idempotent
      ? "the idempotent tool runs again once with the same call id"
      : "the model is told the running bash call was interrupted, nothing runs again";
    test(
      `A is SIGKILLed during a tool; B takes the lease, adopts the fork and resumes (${what}); the chat gets one answer`,
      {
        skip: pg === null ? "no PostgreSQL" : false,
        timeout: 180_000,
      },
      async () => {
        const dirs = tempDirs("bub-cluster-takeover-");
        const file = join(dirs.workspace, "calls.txt");
        const db = await freshDatabase(pg!);
        const telegram = await FakeTelegramServer.start();
        // The running call (call_1) and a call that ends at once (call_2), in one step.
        const slow = idempotent
          ? mockReply.toolCall("append_id", { path: file }, { id: "call_1" })
          : mockReply.toolCall("bash", {
            command: `echo $BUB_TOOL_CALL_ID >> ${file}; sleep 30; echo slept`,
          }, { id: "call_1" });
        const quick = mockReply.toolCall("bash", {
          command: `sleep 0.3; echo $BUB_TOOL_CALL_ID >> ${file}; echo wrote-$BUB_TOOL_CALL_ID`,
        }, { id: "call_2" });
        const model = await MockLlmServer.start({
          script: (request: MockRequest): MockReply =>
            messagesOf(request).at(-1)?.role === "tool"
              ? mockReply.text("Recovered answer.")
              : { ...slow, toolCalls: [...slow.toolCalls!, ...quick.toolCalls!] },
        });
        cleanup.defer(async () => {
          await model.close();
          await telegram.close();
          await db.drop();
          dirs.remove();
        });
        {
          await using schema = new PostgresTapeStore(db.url);
          await schema.listTapes(); // the tables exist before the instances race for them
        }
        dirs.writeConfig(`plugins:\n${PLUGINS.map((p) => `  - ${JSON.stringify(p)}\n`).join("")}`);
        const env = childEnv(dirs, {
          BUB_TAPE_STORE: db.url,
          BUB_CLUSTER_LEASE_SECONDS: String(LEASE_SECONDS),
          BUB_CLUSTER_POLL_SECONDS: "0.2",
          BUB_MODEL: "custom:x",
          BUB_API_BASE: model.url,
          BUB_API_KEY: "sk-cluster",
          BUB_TELEGRAM_TOKEN: telegram.token,
          BUB_TELEGRAM_API_ROOT: telegram.apiRoot,
          BUB_TELEGRAM_ALLOW_USERS: String(telegram.user.id),
          NO_PROXY: "localhost,127.0.0.1",
          no_proxy: "localhost,127.0.0.1",
        });
        const start = async (): Promise<Child> => {
          const child = startChild(
            runtimeCommand(BIN, ["gateway", "--enable-channel", "telegram"]),
            { cwd: dirs.workspace, env },
          );
          cleanup.defer(() => child[Symbol.asyncDispose]());
          await child.waitFor("serving telegram", { timeoutMs: 60_000 });
          return child;
        };
        const ownerOf = (child: Child) => /cluster instance (\S+)/.exec(child.stdout)![1]!;
        const recovered = (text: string) => text.includes("Recovered answer.");
        const sent = () =>
          telegram.callsOf("sendMessage").filter((call) => recovered(String(call.params.text)));

        const a = await start();
        telegram.pushText("write the file");
        await lines(file, 2).catch((error) => {
          throw new Error(`${error.message}; stderr of A: ${a.stderr}`);
        });
        const b = await start();
        // call_2 has ended (its tool.end is journaled) and call_1 still sleeps: kill A.
        await sleep(500);
        a.kill();
        const killedAt = Date.now();
        await a.exited(10_000);
        assert.equal(model.requests.length, 1);
        assert.equal(sent().length, 0);

        await telegram.waitForCalls("sendMessage", 1, {
          where: (call) => recovered(String(call.params.text)),
          timeoutMs: 60_000,
        }).catch((error) => {
          throw new Error(
            `${error.message}; model requests: ${model.requests.length}; ` +
              `stderr of B: ${b.stderr}`,
          );
        });
        const tookMs = Date.now() - killedAt;
        // Give a second delivery (or a re-run of the message) the time to show up.
        await sleep(1500);
        assert.equal(sent().length, 1, JSON.stringify(sent().map((call) => call.params)));
        assert.equal(Number(sent()[0]!.params.chat_id), telegram.privateChat().id);
        const written = readFileSync(file, "utf8").split("\n").filter((line) => line !== "");
        assert.deepEqual(
          written.toSorted(),
          idempotent ? ["call_1", "call_1", "call_2"] : ["call_1", "call_2"],
        );
        // The resumed step's results: one model call more, with both calls' results.
        assert.equal(model.requests.length, 2);
        const tool = messagesOf(model.requests[1]!).filter((message) => message.role === "tool")
          .map((message) => JSON.stringify(message.content));
        assert.equal(tool.length, 2);
        assert.match(
          tool[0]!,
          idempotent ? /appended call_1/ : /interrupted: unknown whether it took effect/,
        );
        assert.match(tool[1]!, /wrote-call_2/);

        const sql = await connectPg(db.url, { max: 1 });
        cleanup.defer(() => sql.end({ timeout: 5 }));
        const events = await sql.unsafe(
          `SELECT event, payload->'data' AS data FROM bub_tape_entries
        WHERE event IN ('turn.interrupted', 'turn.resumed', 'cluster.turn_interrupted',
          'cluster.turn_completed')
        ORDER BY tape, id`,
        );
        const names = events.map((row) => String(row.event));
        assert.deepEqual(names, [
          "cluster.turn_interrupted",
          "turn.interrupted",
          "turn.resumed",
          "cluster.turn_completed",
        ]);
        const data = events.map((row) => row.data as Record<string, unknown>);
        assert.equal(data[0]!.owner, ownerOf(a));
        assert.equal(data[0]!.next_owner, ownerOf(b));
        assert.deepEqual(
          (data[1]!.calls as { call_id: string; state: string }[]).map((c) => [c.call_id, c.state]),
          [["call_1", "started"], ["call_2", "completed"]],
        );
        assert.equal(data[2]!.fork, data[1]!.fork);
        assert.equal(data[3]!.owner, ownerOf(b));
        console.log(
          `takeover with tools: answer ${tookMs} ms after the kill (lease ${LEASE_SECONDS} s)`,
        );
        process.kill(b.process.pid!, "SIGTERM");
        assert.equal(await b.exited(20_000), 0, b.stderr);
      },
    );
  }
});
