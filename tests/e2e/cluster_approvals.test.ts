/**
 * An approval decided on a second cluster instance: two real `bub gateway` instances over one
 * PostgreSQL database and the fake Bot API. Instance A runs a Telegram turn whose `bash` call an
 * `approvals:` rule holds; A stops (SIGTERM) or dies (SIGKILL) while the approval is pending;
 * the user's `,approve <id>` is taken by instance B, which records the decision, resumes the
 * turn, runs the command once and sends the answer once to the asking chat.
 *
 * And a decision typed in another chat (Y, an approver's) on B while X's lease is held by a
 * third owner: B records the decision only; the resume goes to X's inbox and runs when X's lease
 * is free again, as a turn of X by the instance holding its lease (fenced by its epoch).
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

/** A cluster of `bub gateway` instances over a fresh database, the fake Bot API and a model. */
async function clusterFixture(
  cleanup: ReturnType<typeof cleanupStack>,
  pg: string,
  extraEnv: (telegram: FakeTelegramServer) => Record<string, string> = () => ({}),
) {
  const dirs = tempDirs("bub-cluster-approvals-");
  const effect = join(dirs.workspace, "effect.txt");
  const db = await freshDatabase(pg);
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
    ...extraEnv(telegram),
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
  const ownerOf = (child: Child) => /cluster instance (\S+)/.exec(child.stdout)![1]!;
  /** Asks in the user's private chat; the approval id. */
  const ask = async (children: Child[]): Promise<string> => {
    telegram.pushText("write the effect file");
    await telegram.waitForCalls("sendMessage", 1, {
      where: (call) => /,approve [a-z2-7]{10}\b/.test(String(call.params.text)),
      timeoutMs: 60_000,
    }).catch((error) => {
      throw new Error(`${error.message}${diagnose(children)}`);
    });
    const asked = texts().find((text) => /,approve [a-z2-7]{10}\b/.test(text))!;
    assert.match(asked, /writes the effect file/);
    assert.equal(existsSync(effect), false);
    assert.equal(model.requests.length, 1);
    return /,approve ([a-z2-7]{10})\b/.exec(asked)![1]!;
  };
  /** The tool ran once, and the model got its result once. */
  const ranOnce = () => {
    assert.equal(readFileSync(effect, "utf8"), "call_1\n");
    assert.equal(model.requests.length, 2);
    const tool = messagesOf(model.requests[1]!).filter((message) => message.role === "tool");
    assert.equal(tool.length, 1);
    assert.match(JSON.stringify(tool[0]!.content), /ran-call_1/);
  };
  /** Rows of the tape entries (`where` over tape, kind, event, payload). */
  const rows = async (query: string) => {
    const sql = await connectPg(db.url, { max: 1 });
    return await sql.unsafe(query).finally(() => sql.end({ timeout: 5 }));
  };
  return { db, model, telegram, start, texts, diagnose, ownerOf, ask, ranOnce, rows };
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
        const { telegram, start, texts, diagnose, ownerOf, ask, ranOnce, rows } =
          await clusterFixture(cleanup, pg!);
        const a = await start();
        const id = await ask([a]);

        const b = await start();
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
        ranOnce();
        // B ran the `,approve` message's turn (its completion names B).
        const completed = await rows(
          `SELECT payload->'data'->>'owner' AS owner FROM bub_tape_entries
        WHERE event = 'cluster.turn_completed' ORDER BY date`,
        );
        assert.deepEqual(completed.map((row) => row.owner), [ownerOf(a), ownerOf(b)]);
        process.kill(b.process.pid!, "SIGTERM");
        assert.equal(await b.exited(20_000), 0, b.stderr);
      },
    );
  }

  test(
    "chat X asks on instance A; ,approve typed in chat Y on instance B while a third owner holds X's lease: B writes no turn entries in X; the lease holder resumes X through its inbox and the answer reaches X once",
    { skip: pg === null ? "no PostgreSQL" : false, timeout: 180_000 },
    async () => {
      const other = 4242; // a second user, an approver, in a private chat of their own (chat Y)
      const { db, model, telegram, start, texts, diagnose, ownerOf, ask, ranOnce, rows } =
        await clusterFixture(cleanup, pg!, (telegram) => ({
          BUB_TELEGRAM_ALLOW_USERS: `${telegram.user.id},${other}`,
          BUB_APPROVERS: String(other),
        }));
      const x = telegram.privateChat().id;
      const a = await start();
      const id = await ask([a]);
      const b = await start();
      process.kill(a.process.pid!, "SIGTERM"); // so B decides: another instance than the asker's
      assert.equal(await a.exited(20_000), 0, a.stderr);
      // Someone else (a third instance, busy with chat X) holds X's lease meanwhile.
      await using store = new PostgresTapeStore(db.url);
      const lease = await store.acquireLease(`telegram:${x}`, "third-instance", 60_000);
      assert.ok(lease, "X's lease is free after A stopped");
      const xTape = String(
        (await rows(
          `SELECT DISTINCT tape FROM bub_tape_entries WHERE event = 'approval.requested'`,
        ))[0]!.tape,
      );
      const entriesOfX = async () =>
        (await rows(
          `SELECT id, kind, event, payload::text AS payload FROM bub_tape_entries
          WHERE tape = '${xTape}' ORDER BY id`,
        )).map((row) => ({
          id: Number(row.id),
          kind: String(row.kind),
          event: row.event === null ? null : String(row.event),
          data: (JSON.parse(String(row.payload)) as { data?: Record<string, unknown> }).data,
        }));
      const before = texts().length;
      telegram.pushText(`,approve ${id}`, { from: telegram.makeUser(other) });
      await telegram.waitForCalls("sendMessage", 1, {
        where: (call) =>
          Number(call.params.chat_id) === other && String(call.params.text).includes(id),
        timeoutMs: 60_000,
      }).catch((error) => {
        throw new Error(`${error.message}${diagnose([a, b])}`);
      });
      await sleep(1500); // an unfenced resume by B would show up meanwhile
      const turnWrites = (entries: Awaited<ReturnType<typeof entriesOfX>>, after: number) =>
        entries.filter((entry) =>
          entry.id > after && (entry.kind === "tool_result" || entry.kind === "tool_call" ||
            ["tool.start", "tool.end", "loop.step", "approval.resumed"].includes(entry.event ?? ""))
        );
      const held = await entriesOfX();
      const decision = held.find((entry) => entry.event === "approval.decided")!;
      assert.ok(decision, "the decision is on X's tape");
      assert.deepEqual(turnWrites(held, decision.id), [], "no turn entries in X by B");
      assert.equal(model.requests.length, 1);
      const decided = texts().slice(before).find((text) => text.includes(id))!;
      assert.match(decided, new RegExp(`Approved ${id}\\. The turn goes on in telegram:${x}`));
      assert.equal(
        texts().slice(before).filter((text) => text.includes("Effect written.")).length,
        0,
      );

      assert.ok(await store.releaseLease(lease!));
      const answered = (text: string) => text.includes("Effect written.");
      await telegram.waitForCalls("sendMessage", 1, {
        where: (call) => answered(String(call.params.text)),
        timeoutMs: 60_000,
      }).catch((error) => {
        throw new Error(`${error.message}${diagnose([a, b])}`);
      });
      await sleep(1500); // give a second delivery the time to show up
      const sent = telegram.callsOf("sendMessage").slice(before);
      const answers = sent.filter((call) => answered(String(call.params.text)));
      assert.equal(answers.length, 1, JSON.stringify(texts().slice(before)));
      assert.equal(Number(answers[0]!.params.chat_id), x);
      assert.match(
        String(answers[0]!.params.text),
        new RegExp(`Approval ${id} approved by ${other}`),
      );
      ranOnce();
      // The resume's writes lie inside a turn of X's inbox run by its lease holder (B, after
      // the third owner let go), fenced by that lease's epoch.
      const all = await entriesOfX();
      const writes = turnWrites(all, decision.id);
      assert.ok(writes.length > 0);
      const started = all.filter((entry) => entry.event === "cluster.turn_started").at(-1)!;
      const completed = all.filter((entry) => entry.event === "cluster.turn_completed").at(-1)!;
      assert.ok(started.id > decision.id && completed.id > writes.at(-1)!.id, JSON.stringify(all));
      assert.ok(writes.every((entry) => entry.id > started.id));
      assert.equal(started.data?.owner, ownerOf(b));
      assert.ok(Number(started.data?.epoch) > lease!.epoch);
      assert.equal(completed.data?.owner, ownerOf(b));
      process.kill(b.process.pid!, "SIGTERM");
      assert.equal(await b.exited(20_000), 0, b.stderr);
    },
  );
});
