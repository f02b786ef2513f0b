/**
 * A cluster instance dies after its turn ran to its end and before the message completed: two
 * real `bub gateway` instances, one after the other, over one PostgreSQL database and the fake
 * Bot API. Instance A runs a Telegram turn "model → bash appends its call id to a file → model →
 * answer"; the turn's fork merges into the session tape, and A SIGKILLs itself as it renders the
 * answer (before sending it and before completing the inbox message). Instance B takes the
 * session when A's lease expires: the turn is not run again (before the fix the message ran as a
 * new turn: the model was asked again and the tool ran a second time under a new call id),
 * B delivers the answer A recorded, once, without a model call, and completes the message.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
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
  resolve(import.meta.dirname ?? ".", "_kill_after_merge_plugin.ts"),
];
const LEASE_SECONDS = 2;
const ANSWER = "Answer after the tool.";

describe("a cluster instance dies after its turn merged, before the message completed", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());
  const pg = postgresUrl("cluster takeover of an answered turn");

  test(
    "the next owner delivers the recorded answer once: no model call, the tool does not run again",
    { skip: pg === null ? "no PostgreSQL" : false, timeout: 180_000 },
    async () => {
      const dirs = tempDirs("bub-cluster-answered-");
      const file = join(dirs.workspace, "calls.txt");
      const db = await freshDatabase(pg!);
      const telegram = await FakeTelegramServer.start();
      let calls = 0;
      const model = await MockLlmServer.start({
        script: (request: MockRequest): MockReply => {
          const messages = (request.body as { messages: { role: string }[] }).messages;
          if (messages.at(-1)?.role === "tool") return mockReply.text(ANSWER);
          return mockReply.toolCall("bash", { command: `echo $BUB_TOOL_CALL_ID >> ${file}` }, {
            id: `call_${++calls}`,
          });
        },
      });
      cleanup.defer(async () => {
        await model.close();
        await telegram.close();
        await db.drop();
        dirs.remove();
      });
      {
        await using schema = new PostgresTapeStore(db.url);
        await schema.listTapes(); // the tables exist before the instances start
      }
      dirs.writeConfig(`plugins:\n${PLUGINS.map((p) => `  - ${JSON.stringify(p)}\n`).join("")}`);
      const env = (kill: boolean) =>
        childEnv(dirs, {
          BUB_TAPE_STORE: db.url,
          BUB_CLUSTER_LEASE_SECONDS: String(LEASE_SECONDS),
          BUB_CLUSTER_POLL_SECONDS: "0.2",
          BUB_MODEL: "custom:x",
          BUB_API_BASE: model.url,
          BUB_API_KEY: "sk-cluster",
          BUB_TELEGRAM_TOKEN: telegram.token,
          BUB_TELEGRAM_API_ROOT: telegram.apiRoot,
          BUB_TELEGRAM_ALLOW_USERS: String(telegram.user.id),
          BUB_TEST_KILL_AFTER_MERGE: kill ? "1" : undefined,
          NO_PROXY: "localhost,127.0.0.1",
          no_proxy: "localhost,127.0.0.1",
        });
      const start = async (kill: boolean): Promise<Child> => {
        const child = startChild(
          runtimeCommand(BIN, ["gateway", "--enable-channel", "telegram"]),
          { cwd: dirs.workspace, env: env(kill) },
        );
        cleanup.defer(() => child[Symbol.asyncDispose]());
        await child.waitFor("serving telegram", { timeoutMs: 60_000 });
        return child;
      };
      const answers = () =>
        telegram.callsOf("sendMessage").filter((call) => String(call.params.text) === ANSWER);
      const written = () =>
        existsSync(file)
          ? readFileSync(file, "utf8").split("\n").filter((line) => line !== "")
          : [];
      const sql = await connectPg(db.url, { max: 1 });
      cleanup.defer(() => sql.end({ timeout: 5 }));

      const a = await start(true);
      telegram.pushText("write the file");
      await a.exited(60_000);
      // A died with the turn merged (tool call, its end, the answer) and the message pending.
      assert.equal(model.requests.length, 2, a.stderr);
      assert.deepEqual(written(), ["call_1"]);
      assert.equal(answers().length, 0);
      const merged = await sql.unsafe(
        `SELECT count(*)::int AS n FROM bub_tape_entries WHERE event = 'loop.step'
        AND payload->'data'->>'status' = 'ok'`,
      );
      assert.equal(merged[0]!.n, 1);
      const pending = await sql.unsafe(
        `SELECT count(*)::int AS n FROM bub_inbox WHERE state = 'pending'`,
      );
      assert.equal(pending[0]!.n, 1);

      const b = await start(false);
      await telegram.waitForCalls("sendMessage", 1, {
        where: (call) => String(call.params.text) === ANSWER,
        timeoutMs: 60_000,
      }).catch((error) => {
        throw new Error(`${error.message}; model requests: ${model.requests.length}; ${b.stderr}`);
      });
      // Give a second delivery (or a re-run of the message) the time to show up.
      await new Promise((done) => setTimeout(done, 1500));
      assert.equal(answers().length, 1);
      assert.equal(model.requests.length, 2, "the model was asked again");
      assert.deepEqual(written(), ["call_1"], "the tool ran again");
      const events = await sql.unsafe(
        `SELECT event, payload->'data' AS data FROM bub_tape_entries
        WHERE event IN ('cluster.turn_interrupted', 'cluster.turn_completed') ORDER BY tape, id`,
      );
      assert.deepEqual(events.map((row) => String(row.event)), [
        "cluster.turn_interrupted",
        "cluster.turn_completed",
      ]);
      assert.equal((events[0]!.data as Record<string, unknown>).answered, true);
      const left = await sql.unsafe(
        `SELECT count(*)::int AS n FROM bub_inbox WHERE state = 'pending'`,
      );
      assert.equal(left[0]!.n, 0);
      process.kill(b.process.pid!, "SIGTERM");
      assert.equal(await b.exited(20_000), 0, b.stderr);
    },
  );
});
