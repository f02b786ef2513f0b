/**
 * An approval decided on a second cluster instance: two real `bub gateway` instances over one
 * PostgreSQL database and the fake Bot API. Instance A runs a Telegram turn whose `bash` call an
 * `approvals:` rule holds; A stops (SIGTERM) or dies (SIGKILL) while the approval is pending;
 * the user's `,approve <id>` is taken by instance B, which records the decision, resumes the
 * turn, runs the command once and sends the answer once to the asking chat.
 */
import { afterEach, describe, test } from "node:test";
import process from "node:process";
import assert from "node:assert/strict";
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

const PLUGIN = resolve(import.meta.dirname ?? ".", "_cluster_reply_plugin.ts");

function messagesOf(request: MockRequest): { role: string; content: unknown }[] {
  return (request.body as { messages: { role: string; content: unknown }[] }).messages;
}

describe("an approval decided on a second cluster instance", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());
  const pg = postgresUrl("cluster approvals");

  for (const stop of ["SIGTERM", "SIGKILL"] as const) {
    const how = stop === "SIGTERM" ? "stops" : "is SIGKILLed";
    test(
      `instance A asks and ${how}; instance B takes ,approve, runs the command once and answers the asking chat once`,
      {
        skip: pg === null ? "no PostgreSQL" : false,
        timeout: 180_000,
      },
      async () => {
        const dirs = tempDirs("bub-cluster-approvals-");
        const effect = join(dirs.workspace, "effect.txt");
        const db = await freshDatabase(pg!);
        const telegram = await FakeTelegramServer.start();
        const model = await MockLlmServer.start({
          script: (request: MockRequest): MockReply =>
            messagesOf(request).at(-1)?.role === "tool"
              ? mockReply.text("Effect written.")
              : mockReply.toolCall("bash", {
                command: `echo $BUB_TOOL_CALL_ID >> ${effect}; echo ran-$BUB_TOOL_CALL_ID`,
              }, {
                id: "call_1",
              }),
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
        dirs.writeConfig(`plugins:\n  - ${JSON.stringify(PLUGIN)}\n`);
        const env = childEnv(dirs, {
          BUB_TAPE_STORE: db.url,
          BUB_CLUSTER_LEASE_SECONDS: "2",
          BUB_CLUSTER_POLL_SECONDS: "0.2",
          BUB_MODEL: "custom:x",
          BUB_API_BASE: model.url,
          BUB_API_KEY: "sk-cluster",
          BUB_TELEGRAM_TOKEN: telegram.token,
          BUB_TELEGRAM_API_ROOT: telegram.apiRoot,
          BUB_TELEGRAM_ALLOW_USERS: String(telegram.user.id),
          BUB_APPROVALS: JSON.stringify([
            { tool: "bash", match: "effect\\.txt", reason: "writes the effect file" },
          ]),
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
          assert.match(child.stdout, /cluster instance \S+/);
          return child;
        };
        const texts = () => telegram.callsOf("sendMessage").map((call) => String(call.params.text));
        const diagnose = (children: Child[]) =>
          `; sent: ${JSON.stringify(texts())}; model requests: ${model.requests.length}${
            children.map((child) => `\n--- stderr ---\n${child.stderr}`).join("")
          }`;

        const a = await start();
        telegram.pushText("write the effect file");
        await telegram.waitForCalls("sendMessage", 1, {
          where: (call) => /,approve [a-z2-7]{10}\b/.test(String(call.params.text)),
          timeoutMs: 60_000,
        }).catch((error) => {
          throw new Error(`${error.message}${diagnose([a])}`);
        });
        const asked = texts().find((text) => /,approve [a-z2-7]{10}\b/.test(text))!;
        const id = /,approve ([a-z2-7]{10})\b/.exec(asked)![1]!;
        assert.match(asked, /writes the effect file/);
        assert.equal(existsSync(effect), false);
        assert.equal(model.requests.length, 1);

        const b = await start();
        const ownerOf = (child: Child) => /cluster instance (\S+)/.exec(child.stdout)![1]!;
        if (stop === "SIGTERM") {
          process.kill(a.process.pid!, "SIGTERM");
          assert.equal(await a.exited(20_000), 0, a.stderr);
        } else {
          a.kill();
          await a.exited(10_000);
        }
        const before = texts().length;
        telegram.pushText(`,approve ${id}`);
        const answered = (text: string) => text.includes("Effect written.");
        await telegram.waitForCalls("sendMessage", 1, {
          where: (call) => answered(String(call.params.text)),
          timeoutMs: 60_000,
        }).catch((error) => {
          throw new Error(`${error.message}${diagnose([a, b])}`);
        });
        // Give a second delivery (a re-run on another instance) the time to show up.
        await sleep(1500);
        const after = texts().slice(before);
        assert.equal(after.filter(answered).length, 1, JSON.stringify(after));
        assert.match(after.find(answered)!, new RegExp(`Approved ${id}\\.`));
        const chats = telegram.callsOf("sendMessage").slice(before)
          .map((call) => Number(call.params.chat_id));
        assert.deepEqual([...new Set(chats)], [telegram.privateChat().id]);
        assert.equal(readFileSync(effect, "utf8"), "call_1\n");
        assert.equal(model.requests.length, 2);
        const tool = messagesOf(model.requests[1]!).filter((message) => message.role === "tool");
        assert.equal(tool.length, 1);
        assert.match(JSON.stringify(tool[0]!.content), /ran-call_1/);
        // B ran the `,approve` message's turn (its completion names B).
        const sql = await connectPg(db.url, { max: 1 });
        const completed = await sql.unsafe(
          `SELECT payload->'data'->>'owner' AS owner FROM bub_tape_entries
        WHERE event = 'cluster.turn_completed' ORDER BY date`,
        ).finally(() => sql.end({ timeout: 5 }));
        assert.deepEqual(completed.map((row) => row.owner), [ownerOf(a), ownerOf(b)]);
        process.kill(b.process.pid!, "SIGTERM");
        assert.equal(await b.exited(20_000), 0, b.stderr);
      },
    );
  }
});
